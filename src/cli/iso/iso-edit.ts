// The shared steps of the offline ISO verbs: open and parse a live ISO, read back what its embed
// area holds, encode a new embed area, and write the edited image (in place, to a new file, or to
// stdout; see src/cli/output/write-output.ts). The image may be a regular file or a block device
// (its size from ../input/image-size.ts; in-place edits only for devices).
// Does: compose src/iso, src/initrd and src/splice. Does NOT: parse command lines or print.
import { BaseFile } from '../../splice/base-file.js';
import { type Patch, SplicedFile } from '../../splice/spliced-file.js';
import { compress, type Compression } from '../../initrd/compression.js';
import { writeCpio, type CpioFileInput } from '../../initrd/cpio.js';
import { fitToArea, readEmbedArea, type EmbedContents } from '../../initrd/embed-archive.js';
import { open } from 'node:fs/promises';

import { IsoFs } from '../../iso/iso9660.js';
import { parseLiveIsoFs } from '../../iso/live-layout.js';
import type { LiveManifest } from '../../iso/manifest.js';
import { kargsInAreas } from '../../iso/read-embed-areas.js';
import { readExactly } from '../../iso/read-range.js';
import { FormatError, PayloadTooLargeError, withContext } from '../../errors.js';
import { imageSize, sizedReader } from '../input/image-size.js';
import { CliError, type CliIo } from '../verb.js';
import { patchInPlace, writeSpliced } from '../output/write-output.js';

/** coreos-installer writes the embed archive xz-compressed (CRC32 check); so do we by default. */
export const DEFAULT_EMBED_COMPRESSION: Compression = 'xz';
/**
 * What an embed area may expand to: it holds an Ignition config and keyfiles (kilobytes); a
 * hostile ISO's area (256 KiB of xz) could otherwise expand to gigabytes in memory.
 */
export const MAX_EMBED_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

export interface LiveIsoFile {
  path: string;
  manifest: LiveManifest;
}

export async function openLiveIso(path: string): Promise<LiveIsoFile> {
  if (path === '') throw new CliError(path, 'empty file name');
  const fh = await withContext(
    `opening ISO image ${path}`,
    () => open(path, 'r'),
    (message, cause) => new FormatError(message, { path }, { cause }),
  );
  let iso: IsoFs | undefined;
  try {
    iso = await IsoFs.fromHandle(sizedReader(fh, await imageSize(fh, path)), path, true);
    return { path, manifest: await parseLiveIsoFs(iso) };
  } finally {
    if (iso !== undefined) await iso.close();
    else await fh.close();
  }
}

/** Reads `length` bytes at `offset` of the image (a file or a block device). */
export async function readImageRange(iso: LiveIsoFile, offset: number, length: number, what: string): Promise<Buffer> {
  const fh = await open(iso.path, 'r');
  try {
    return await readExactly(fh, iso.path, iso.manifest.size, offset, length, what);
  } finally {
    await fh.close();
  }
}

/** The kargs the image's areas hold now (undefined without kargs areas). */
export async function readCurrentKargs(iso: LiveIsoFile): Promise<string | undefined> {
  const areas = iso.manifest.kargs;
  if (areas === undefined) return undefined;
  return kargsInAreas((offset, length, what) => readImageRange(iso, offset, length, what), areas, iso.path);
}

/** What the embed area holds now (empty for a pristine image). */
export async function readEmbedContents(iso: LiveIsoFile): Promise<EmbedContents> {
  const area = iso.manifest.ignition;
  const bytes = await readImageRange(iso, area.offset, area.length, `Ignition embed area (${area.file})`);
  if (bytes.every((b) => b === 0)) return { networkKeyfiles: [], members: [] };
  return withContext(
    `the embed area (${area.file}) holds no readable archive`,
    () => readEmbedArea(bytes, MAX_EMBED_DECOMPRESSED_BYTES),
    (message, cause) => new CliError(iso.path, message, { cause }),
  );
}

/** The patch that writes `members` into the embed area (an empty list zeroes it, as pristine). */
export async function embedAreaPatch(
  iso: LiveIsoFile,
  members: readonly CpioFileInput[],
  compression: Compression = DEFAULT_EMBED_COMPRESSION,
): Promise<Patch> {
  const area = iso.manifest.ignition;
  if (members.length === 0) return { offset: area.offset, length: area.length, bytes: Buffer.alloc(0) };
  const archive = await compress(writeCpio(members), compression);
  try {
    fitToArea(archive, area.length);
  } catch (err) {
    if (err instanceof PayloadTooLargeError) {
      throw new CliError(
        iso.path,
        `the compressed embed archive is ${archive.length} bytes but the embed area (${area.file}) holds ${area.length}; ${archive.length - area.length} bytes too many`,
      );
    }
    throw err;
  }
  return { offset: area.offset, length: area.length, bytes: archive };
}

export interface WriteIsoOptions {
  /** undefined: in place; `-`: stdout; otherwise a new file. */
  output: string | undefined;
  io: CliIo;
  quiet: boolean;
}

/** Writes the ISO with `patches` applied (see the header comment of write-output.ts). */
export async function writeEditedIso(iso: LiveIsoFile, patches: Patch[], options: WriteIsoOptions): Promise<void> {
  if (options.output === undefined) {
    await patchInPlace(iso.path, iso.manifest.size, patches);
    return;
  }
  const base = await BaseFile.open(iso.path);
  try {
    if (base.size !== iso.manifest.size) throw new CliError(iso.path, 'changed size while being read');
    const file = new SplicedFile(base, { patches });
    await writeSpliced(file, options.output, {
      io: options.io,
      quiet: options.quiet,
      label: options.output === '-' ? 'stdout' : options.output,
    });
  } finally {
    base.close();
  }
}
