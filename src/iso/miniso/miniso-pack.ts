// Writing coreos/miniso.dat: the equivalent of `coreos-installer pack minimal-iso FULL MINIMAL`
// (src/live/mod.rs `pack_minimal_iso`, src/miniso.rs `Table::new`, `Data::xzpack`).
//
// How coreos-installer builds the table, and so how we do: walk both ISOs' primary-volume
// directory trees and key every file (not directory) by its ISO 9660 path (`IMAGES/PXEBOOT/
// VMLINUZ`: the PVD names with `;1` and a trailing `.` stripped, joined with `/`); every file of
// the minimal ISO must exist in the full ISO with the same length (else an error); one entry
// (minimal sector, full sector, length) per file, sorted by minimal sector, zero-length files
// dropped, identical neighbours (hard links) merged, then validated (non-empty, no overlap).
// Contents are not compared here; the digest check afterwards proves the result.
// The minimal ISO is then read once, front to back: everything is hashed (SHA-256) and the bytes
// outside the entries go to xz (preset 9, CRC64; src/iso/miniso/miniso-xz.ts). Like coreos-installer
// we finally rebuild the minimal ISO from the full ISO and the new data into a hashing sink to
// prove the data works, and `packMinimalIso` overwrites the start of the full ISO's own
// coreos/miniso.dat file in place (the rest of that file is left as it is; cosa reserves it as
// 16 KiB of zeros).
// Differences: the header's app_version is ours (`bootsmith` unless given); our directory walk
// merges contiguous multi-extent files (coreos-installer keeps only their last extent; CoreOS
// ISOs have none); with equal minimal sectors entries are also ordered by full sector and
// length, making the output deterministic where coreos-installer's HashMap order is not.
// Does NOT: build ISOs (fixtures/build-live-iso.sh does, like cosa), or delete the minimal ISO.

import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';

import { FormatError } from '../../errors.js';
import { IsoFs, withIsoFs, type IsoEntry } from '../iso9660.js';
import {
  encodeMinisoData,
  MINISO_MAX_BYTES,
  MINISO_PATH,
  sectorOffset,
  tableProblem,
  type MinisoData,
  type MinisoEntry,
} from './miniso-format.js';
import { unpackMiniso } from './miniso-rebuild.js';
import { xzPack, type Sink } from './miniso-xz.js';
import { SECTOR_SIZE } from '../directory-record.js';

const COPY_CHUNK = 1024 * 1024;
const U32_MAX = 0xffff_ffff;
const MAX_DEPTH = 64;
export const DEFAULT_APP_VERSION = 'bootsmith';

export interface PackOptions {
  /** Recorded in the header (informational); default `bootsmith`. */
  appVersion?: string;
}

export interface PackStats {
  /** Files of the minimal ISO matched in the full ISO (before dropping empty and duplicate ones). */
  matched: number;
  /** Files in the minimal ISO. */
  minimalFiles: number;
  /** Table entries. */
  entries: number;
  /** Bytes of the minimal ISO taken from the full ISO. */
  skipped: number;
  /** Bytes of the minimal ISO given to xz, and their compressed size. */
  written: number;
  writtenCompressed: number;
}

/** Every file of the image keyed by ISO 9660 path, as coreos-installer's `collect_iso_files`. */
export async function collectIsoFiles(iso: IsoFs): Promise<Map<string, IsoEntry>> {
  const files = new Map<string, IsoEntry>();
  const seen = new Set<number>([iso.root().offset]);
  const walk = async (dir: IsoEntry, prefix: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH)
      throw new FormatError(`walking ${iso.path}: directory tree deeper than ${MAX_DEPTH} levels`, { path: iso.path });
    for (const entry of await iso.list(dir)) {
      const p = prefix === '' ? entry.isoName : `${prefix}/${entry.isoName}`;
      if (!entry.isDirectory) {
        files.set(p, entry);
        continue;
      }
      if (seen.has(entry.offset))
        throw new FormatError(`walking ${iso.path}: directory loop at ${p}`, { path: iso.path });
      seen.add(entry.offset);
      await walk(entry, p, depth + 1);
    }
  };
  await walk(iso.root(), '', 0);
  return files;
}

/** The miniso table for these two file sets (see the header comment); FormatError when they do not fit. */
export function buildTable(
  full: Map<string, IsoEntry>,
  minimal: Map<string, IsoEntry>,
  where: string,
): { entries: MinisoEntry[]; matched: number } {
  const fail = (reason: string): FormatError => new FormatError(`packing ${where}: ${reason}`, { where });
  const all: MinisoEntry[] = [];
  for (const [p, m] of minimal) {
    const f = full.get(p);
    if (f === undefined) throw fail(`file ${p} of the minimal ISO is missing from the full ISO`);
    if (f.length !== m.length)
      throw fail(`file ${p} is ${m.length} bytes in the minimal ISO but ${f.length} in the full ISO`);
    if (m.length > U32_MAX) throw fail(`file ${p} is ${m.length} bytes, more than a miniso table entry can describe`);
    all.push({ minimal: m.offset / SECTOR_SIZE, full: f.offset / SECTOR_SIZE, length: m.length });
  }
  all.sort((a, b) => a.minimal - b.minimal || a.full - b.full || a.length - b.length);
  const entries: MinisoEntry[] = [];
  for (const e of all) {
    if (e.length === 0) continue;
    const last = entries[entries.length - 1];
    if (last !== undefined && last.minimal === e.minimal && last.full === e.full && last.length === e.length) continue;
    entries.push(e);
  }
  const problem = tableProblem(entries);
  if (problem !== undefined) throw fail(`invalid table: ${problem}`);
  return { entries, matched: all.length };
}

/** Reads the minimal ISO once: hashes all of it and hands the bytes outside `entries` to `gap`. */
async function scanMinimal(
  fh: FileHandle,
  size: number,
  entries: readonly MinisoEntry[],
  gap: Sink,
  path: string,
): Promise<Buffer> {
  const hash = createHash('sha256');
  const buf = Buffer.alloc(COPY_CHUNK);
  const copy = async (start: number, end: number, toXz: boolean): Promise<void> => {
    for (let pos = start; pos < end;) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - pos), pos);
      if (bytesRead === 0)
        throw new FormatError(`reading minimal ISO ${path} at offset ${pos}: unexpected end of file`, { path });
      const chunk = buf.subarray(0, bytesRead);
      hash.update(chunk);
      if (toXz) await gap(chunk);
      pos += bytesRead;
    }
  };
  let offset = 0;
  for (const e of entries) {
    const at = sectorOffset(e.minimal);
    await copy(offset, at, true);
    await copy(at, at + e.length, false);
    offset = at + e.length;
  }
  await copy(offset, size, true);
  return hash.digest();
}

/**
 * Builds the coreos/miniso.dat bytes that let `fullIsoPath` rebuild `minimalIsoPath` exactly,
 * verified by rebuilding into a hashing sink. Does not modify either file.
 */
export async function buildMinisoData(
  fullIsoPath: string,
  minimalIsoPath: string,
  options: PackOptions = {},
): Promise<Buffer> {
  return (await packData(fullIsoPath, minimalIsoPath, options)).bytes;
}

interface Packed {
  bytes: Buffer;
  entries: MinisoEntry[];
  stats: PackStats;
}

async function packData(fullIsoPath: string, minimalIsoPath: string, options: PackOptions): Promise<Packed> {
  const where = `${minimalIsoPath} against ${fullIsoPath}`;
  const full = await withIsoFs(fullIsoPath, collectIsoFiles);
  const minimal = await withIsoFs(minimalIsoPath, collectIsoFiles);
  if (full.size === 0)
    throw new FormatError(`packing ${where}: no files found in ${fullIsoPath}`, { path: fullIsoPath });
  if (minimal.size === 0)
    throw new FormatError(`packing ${where}: no files found in ${minimalIsoPath}`, { path: minimalIsoPath });
  const { entries, matched } = buildTable(full, minimal, where);

  const fh = await open(minimalIsoPath, 'r');
  let digest: Buffer | undefined;
  let written = 0;
  let xzpacked: Buffer;
  try {
    const size = (await fh.stat()).size;
    xzpacked = await xzPack(async (write) => {
      digest = await scanMinimal(
        fh,
        size,
        entries,
        async (chunk) => {
          written += chunk.length;
          await write(chunk);
        },
        minimalIsoPath,
      );
    }, `compressing the gaps of ${minimalIsoPath}`);
  } finally {
    await fh.close();
  }
  if (digest === undefined) throw new FormatError(`packing ${where}: the minimal ISO was not read`);
  const data: MinisoData = { appVersion: options.appVersion ?? DEFAULT_APP_VERSION, entries, digest, xzpacked };
  const bytes = encodeMinisoData(data);
  await verifyPacked(fullIsoPath, data, where);
  const skipped = entries.reduce((n, e) => n + e.length, 0);
  return {
    bytes,
    entries,
    stats: {
      matched,
      minimalFiles: minimal.size,
      entries: entries.length,
      skipped,
      written,
      writtenCompressed: xzpacked.length,
    },
  };
}

/** Rebuilds into a hashing sink only, as coreos-installer does before it writes anything. */
async function verifyPacked(fullIsoPath: string, data: MinisoData, where: string): Promise<void> {
  const fh = await open(fullIsoPath, 'r');
  try {
    await unpackMiniso(
      data,
      { fh, path: fullIsoPath, size: (await fh.stat()).size },
      async () => undefined,
      `the new miniso data for ${where}`,
    );
  } finally {
    await fh.close();
  }
}

/**
 * Overwrites the start of the full ISO's coreos/miniso.dat file with `bytes` (the file must be
 * at least that long; the rest of it is left alone), as `coreos-installer pack minimal-iso` does.
 */
export async function writeMinisoData(fullIsoPath: string, bytes: Buffer): Promise<void> {
  const entry = await minisoFile(fullIsoPath);
  if (bytes.length > entry.length || bytes.length > MINISO_MAX_BYTES) {
    throw new FormatError(
      `writing miniso data into ${fullIsoPath}: ${bytes.length} bytes do not fit the ${entry.length}-byte ${MINISO_PATH}`,
      {
        path: fullIsoPath,
        size: bytes.length,
        capacity: entry.length,
      },
    );
  }
  const fh = await open(fullIsoPath, 'r+');
  try {
    for (let done = 0; done < bytes.length;) {
      const { bytesWritten } = await fh.write(bytes, done, bytes.length - done, entry.offset + done);
      done += bytesWritten;
    }
  } finally {
    await fh.close();
  }
}

async function minisoFile(fullIsoPath: string): Promise<IsoEntry> {
  const entry = await withIsoFs(fullIsoPath, (iso) => iso.lookupFile(MINISO_PATH));
  if (entry === undefined) {
    throw new FormatError(`writing miniso data into ${fullIsoPath}: the image has no ${MINISO_PATH} file to hold it`, {
      path: fullIsoPath,
    });
  }
  return entry;
}

/**
 * `coreos-installer pack minimal-iso FULL MINIMAL`: build, verify and write miniso.dat into the
 * full ISO. Also refuses (before writing) a minimal ISO that shares the full ISO's miniso.dat
 * bytes, which writing would invalidate (cosa removes the file before building the minimal ISO).
 */
export async function packMinimalIso(
  fullIsoPath: string,
  minimalIsoPath: string,
  options: PackOptions = {},
): Promise<PackStats> {
  const target = await minisoFile(fullIsoPath);
  const { bytes, entries, stats } = await packData(fullIsoPath, minimalIsoPath, options);
  const shared = entries.find((e) => {
    const start = sectorOffset(e.full);
    return start < target.offset + target.length && target.offset < start + e.length;
  });
  if (shared !== undefined) {
    throw new FormatError(
      `packing ${minimalIsoPath} against ${fullIsoPath}: the minimal ISO shares the bytes of the full ISO's ${MINISO_PATH}, ` +
        'which writing the data would change; build the minimal ISO without that file',
      { path: minimalIsoPath },
    );
  }
  await writeMinisoData(fullIsoPath, bytes);
  return stats;
}
