// Reading an image's embed areas: the kargs its kernel-argument areas currently hold (all areas
// must agree) and the current bytes of its Ignition area.
//
// Does: small range reads of an image (a path or an open FileHandle) and the agreement check.
// Does NOT: decode or encode area bytes (src/iso/kargs-codec.ts), locate the areas
// (src/iso/kargs-areas.ts), or write anything.

import { open, type FileHandle } from 'node:fs/promises';

import { FormatError, withContext } from '../errors.js';
import { decodeKargsArea, locationChars } from './kargs-codec.js';
import type { KargsAreas, KargsLocation, LiveManifest } from './manifest.js';
import { readExactly } from './read-range.js';

export type ReadRange = (offset: number, length: number, what: string) => Promise<Buffer>;

/**
 * Reads every area and returns the kargs they hold; FormatError "kargs areas disagree" when two
 * areas decode to different kargs. Messages never include the kargs themselves.
 */
export async function kargsInAreas(read: ReadRange, areas: KargsAreas, imagePath: string): Promise<string> {
  let first: { kargs: string; location: KargsLocation } | undefined;
  for (const location of areas.locations) {
    const where = `kargs area at offset ${location.offset} (${location.file}) of ${imagePath}`;
    const { pad, end } = locationChars(areas, location);
    const kargs = decodeKargsArea(await read(location.offset, areas.size, where), pad, end, where);
    if (first === undefined) {
      first = { kargs, location };
    } else if (kargs !== first.kargs) {
      throw new FormatError(
        `checking kargs areas of ${imagePath}: kargs areas disagree: the area at offset ${location.offset} (${location.file}) ` +
          `differs from the area at offset ${first.location.offset} (${first.location.file})`,
        { path: imagePath, offsets: [first.location.offset, location.offset] },
      );
    }
  }
  if (first === undefined)
    throw new FormatError(`checking kargs areas of ${imagePath}: no kargs areas`, { path: imagePath });
  return first.kargs;
}

async function withReader<T>(
  source: string | FileHandle,
  fn: (read: ReadRange, name: string) => Promise<T>,
): Promise<T> {
  const ownHandle = typeof source === 'string';
  const name = typeof source === 'string' ? source : `file descriptor ${source.fd}`;
  const fh: FileHandle =
    typeof source === 'string'
      ? await withContext(
          `opening ${name}`,
          () => open(source, 'r'),
          (message, cause) => new FormatError(message, { path: name }, { cause }),
        )
      : source;
  try {
    const size = (await fh.stat()).size;
    return await fn((offset, length, what) => readExactly(fh, name, size, offset, length, what), name);
  } finally {
    if (ownHandle) await fh.close();
  }
}

/** The kargs currently written in the image's areas (see `kargsInAreas`). */
export async function readEmbeddedKargs(
  source: string | FileHandle,
  manifest: Pick<LiveManifest, 'kargs'>,
): Promise<string> {
  return withReader(source, async (read, name) => {
    if (manifest.kargs === undefined) {
      throw new FormatError(`reading kargs of ${name}: the image has no kargs embed areas`, { path: name });
    }
    return kargsInAreas(read, manifest.kargs, name);
  });
}

/** The current bytes of the Ignition embed area (all zeros in a pristine image). */
export async function readIgnitionArea(
  source: string | FileHandle,
  manifest: Pick<LiveManifest, 'ignition'>,
): Promise<Buffer> {
  const { offset, length, file } = manifest.ignition;
  return withReader(source, (read) => read(offset, length, `Ignition embed area (${file})`));
}
