// Kernel-argument embed areas: decoding what an area holds, encoding new kargs into the exact
// bytes of one area, and reading the current kargs / Ignition area of an image.
//
// Rules follow coreos-installer src/live/embed.rs (KargEmbedAreas::parse and ::set_kargs):
// - reading: the area as UTF-8 (invalid UTF-8 is an error), trailing `pad` characters removed,
//   then trailing `end` characters, then surrounding whitespace; all areas must agree.
// - writing: kargs are trimmed; they must be shorter than the area (at most size - 1 bytes, so the
//   `end` character fits); the area is `kargs + end` followed by `pad` up to `size` bytes.
// `pad` and `end` come per file from kargs.json (`files[].pad`/`files[].end`, default `#`/`\n`).
// Does: pure encode/decode plus small range reads of an image.
// Does NOT: locate the areas (src/iso/kargs-areas.ts), decide which kargs to write, or patch files
// (src/splice serves the encoded bytes as patches).

import { open, type FileHandle } from 'node:fs/promises';

import { FormatError, PayloadTooLargeError } from '../errors.js';
import type { KargsAreas, KargsLocation, LiveManifest } from './manifest.js';
import { readExactly } from './read-range.js';

export type ReadRange = (offset: number, length: number, what: string) => Promise<Buffer>;

const EDGE_WHITESPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;

/** Trims Unicode White_Space at both ends, like Rust's `str::trim`. */
export function trimKargs(s: string): string {
  return s.replace(EDGE_WHITESPACE, '');
}

function trimEndAll(s: string, c: string): string {
  let out = s;
  while (c.length > 0 && out.endsWith(c)) out = out.slice(0, out.length - c.length);
  return out;
}

/** The fill and terminator characters used at one location. */
export function locationChars(areas: KargsAreas, location?: KargsLocation): { pad: string; end: string } {
  return { pad: location?.pad ?? areas.pad, end: location?.end ?? areas.end };
}

/** The kargs an area currently holds. `where` names the area in the error for invalid UTF-8. */
export function decodeKargsArea(bytes: Buffer, pad: string, end: string, where = 'kargs area'): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (err) {
    throw new FormatError(`decoding ${where}: invalid UTF-8`, {}, { cause: err });
  }
  return trimKargs(trimEndAll(trimEndAll(text, pad), end));
}

/** One ASCII character as a byte; kargs.json parsing rejects anything else. */
function asciiByte(c: string, what: string): number {
  const code = c.charCodeAt(0);
  if (c.length !== 1 || code > 0x7f) throw new FormatError(`kargs ${what} character ${JSON.stringify(c)} is not a single ASCII character`);
  return code;
}

/**
 * The exact bytes of the area at `location` (default: the areas' own pad/end) holding `kargs`:
 * trimmed kargs, the `end` character, then `pad` up to `areas.size` bytes.
 * PayloadTooLargeError when the trimmed kargs plus terminator exceed the area.
 */
export function encodeKargsArea(kargs: string, areas: KargsAreas, location?: KargsLocation): Buffer {
  const { pad, end } = locationChars(areas, location);
  const padByte = asciiByte(pad, 'pad');
  asciiByte(end, 'end');
  const text = trimKargs(kargs);
  const length = Buffer.byteLength(text, 'utf8');
  if (length >= areas.size) {
    throw new PayloadTooLargeError('kernel arguments plus terminator', length + 1, areas.size, {
      areaFile: location?.file ?? areas.locations[0]?.file,
    });
  }
  const area = Buffer.alloc(areas.size, padByte);
  area.write(text + end, 0, 'utf8');
  return area;
}

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
  if (first === undefined) throw new FormatError(`checking kargs areas of ${imagePath}: no kargs areas`, { path: imagePath });
  return first.kargs;
}

async function withReader<T>(source: string | FileHandle, fn: (read: ReadRange, name: string) => Promise<T>): Promise<T> {
  const ownHandle = typeof source === 'string';
  const name = typeof source === 'string' ? source : `file descriptor ${source.fd}`;
  let fh: FileHandle;
  try {
    fh = typeof source === 'string' ? await open(source, 'r') : source;
  } catch (err) {
    throw new FormatError(`opening ${name}: ${(err as Error).message}`, { path: name }, { cause: err });
  }
  try {
    const size = (await fh.stat()).size;
    return await fn((offset, length, what) => readExactly(fh, name, size, offset, length, what), name);
  } finally {
    if (ownHandle) await fh.close();
  }
}

/** The kargs currently written in the image's areas (see `kargsInAreas`). */
export async function readEmbeddedKargs(source: string | FileHandle, manifest: Pick<LiveManifest, 'kargs'>): Promise<string> {
  return withReader(source, async (read, name) => {
    if (manifest.kargs === undefined) {
      throw new FormatError(`reading kargs of ${name}: the image has no kargs embed areas`, { path: name });
    }
    return kargsInAreas(read, manifest.kargs, name);
  });
}

/** The current bytes of the Ignition embed area (all zeros in a pristine image). */
export async function readIgnitionArea(source: string | FileHandle, manifest: Pick<LiveManifest, 'ignition'>): Promise<Buffer> {
  const { offset, length, file } = manifest.ignition;
  return withReader(source, (read) => read(offset, length, `Ignition embed area (${file})`));
}
