// The coreos/miniso.dat format, version 1, as coreos-installer defines it (src/miniso.rs):
// everything needed to rebuild a byte-exact minimal ISO from the full live ISO that carries it.
//
// Layout (bincode 1.x, varint integers, see src/iso/miniso/miniso-bincode.ts), two values back to back:
//   Header { magic: [u8; 8] = "MINISO\0\0", version: u32 = 1, app_version: String }
//   Data   { table: Table { entries: Vec<TableEntry> }, digest: [u8; 32], xzpacked: Vec<u8> }
//   TableEntry { minimal: u32 sector, full: u32 sector, length: u32 bytes }
// Each entry says: `length` bytes at sector `minimal` of the minimal ISO are the bytes at sector
// `full` of the full ISO (a file both ISOs share). `xzpacked` is one .xz stream holding every
// other byte of the minimal ISO (the gaps before, between and after the entries, in order).
// `digest` is the SHA-256 of the whole minimal ISO. Bytes after Data are ignored (cosa reserves
// a 16 KiB zero-filled file and coreos-installer overwrites only its start); at most 1 MiB is
// ever read (coreos-installer's DATA_MAX_SIZE).
// Validation, as coreos-installer's: magic, version, a non-empty table whose entries are in
// minimal-ISO order and do not overlap.
// Does: pure decode/encode of the bytes. Does NOT: read ISOs, run xz, or rebuild anything
// (src/iso/miniso/miniso-rebuild.ts, src/iso/miniso/miniso-pack.ts).

import { FormatError } from '../../errors.js';
import { BincodeError, BincodeReader, BincodeWriter } from './miniso-bincode.js';
import { SECTOR_SIZE } from '../directory-record.js';

export const MINISO_MAGIC = Buffer.from('MINISO\0\0', 'latin1');
export const MINISO_VERSION = 1;
/** coreos-installer refuses to read or write more than this (DATA_MAX_SIZE). */
export const MINISO_MAX_BYTES = 1024 * 1024;
/** ISO path of the data file in a full live ISO. */
export const MINISO_PATH = 'coreos/miniso.dat';
const DIGEST_BYTES = 32;
const U32_MAX = 0xffff_ffff;

/** One shared file: `length` bytes at sector `minimal` of the minimal ISO = bytes at sector `full` of the full ISO. */
export interface MinisoEntry {
  minimal: number;
  full: number;
  length: number;
}

export interface MinisoData {
  /** Version of the program that wrote the file (informational, e.g. coreos-installer `0.17.0`). */
  appVersion: string;
  entries: MinisoEntry[];
  /** SHA-256 of the minimal ISO, 32 bytes. */
  digest: Buffer;
  /** One .xz stream: the minimal ISO's bytes outside the entries, in order. */
  xzpacked: Buffer;
}

/** Byte offset of sector `lba` (64-bit safe). */
export function sectorOffset(lba: number): number {
  return lba * SECTOR_SIZE;
}

/**
 * Decodes miniso.dat. `where` names the file in errors (e.g. `coreos/miniso.dat of /x.iso`).
 * Reads at most MINISO_MAX_BYTES of `buf`; anything after the data is ignored.
 */
export function parseMinisoData(buf: Buffer, where: string): MinisoData {
  const limited = buf.subarray(0, MINISO_MAX_BYTES);
  const r = new BincodeReader(limited);
  const fail = (reason: string, cause?: unknown): FormatError =>
    new FormatError(
      `reading ${where}: ${reason}`,
      { where, position: r.position },
      cause === undefined ? undefined : { cause },
    );
  try {
    const magic = r.bytes(MINISO_MAGIC.length, 'header magic');
    if (!magic.equals(MINISO_MAGIC))
      throw fail(
        `not a miniso data file (magic is ${JSON.stringify(magic.toString('latin1'))}, expected "MINISO\\0\\0")`,
      );
    const version = r.u32('header version');
    const appVersion = r.string('header app_version');
    if (version !== MINISO_VERSION) {
      throw fail(
        `incompatible miniso data version ${version} (written by ${JSON.stringify(appVersion)}); only version ${MINISO_VERSION} is supported`,
      );
    }
    const count = r.length('table entries');
    const entries: MinisoEntry[] = [];
    for (let i = 0; i < count; i++) {
      entries.push({
        minimal: r.u32(`table entry ${i} minimal sector`),
        full: r.u32(`table entry ${i} full sector`),
        length: r.u32(`table entry ${i} length`),
      });
    }
    const digest = r.bytes(DIGEST_BYTES, 'digest');
    const xzpacked = r.byteVec('xz-packed data');
    const data: MinisoData = { appVersion, entries, digest, xzpacked };
    const problem = tableProblem(entries);
    if (problem !== undefined) throw fail(`invalid table: ${problem}`);
    return data;
  } catch (err) {
    if (err instanceof FormatError) throw err;
    if (err instanceof BincodeError) {
      const truncated = limited.length < buf.length && /truncated/.test(err.message);
      throw fail(truncated ? `${err.message}; miniso data may not exceed ${MINISO_MAX_BYTES} bytes` : err.message, err);
    }
    throw err;
  }
}

/**
 * Why a table is invalid, or undefined when it is fine: coreos-installer's Table::validate
 * (not empty; each entry ends at or before the next one starts, which also forces minimal order).
 */
export function tableProblem(entries: readonly MinisoEntry[]): string | undefined {
  if (entries.length === 0) return 'the table is empty (the ISOs have no files in common?)';
  for (let i = 1; i < entries.length; i++) {
    const prev = entries[i - 1]!;
    const next = entries[i]!;
    if (sectorOffset(prev.minimal) + prev.length > sectorOffset(next.minimal)) {
      return `entries at minimal-ISO offsets ${sectorOffset(prev.minimal)} and ${sectorOffset(next.minimal)} overlap or are out of order`;
    }
  }
  return undefined;
}

/** Encodes miniso.dat (header then data), exactly as coreos-installer serialises it. */
export function encodeMinisoData(data: MinisoData): Buffer {
  if (data.digest.length !== DIGEST_BYTES)
    throw new RangeError(`miniso digest must be ${DIGEST_BYTES} bytes, not ${data.digest.length}`);
  const problem = tableProblem(data.entries);
  if (problem !== undefined) throw new FormatError(`encoding miniso data: invalid table: ${problem}`);
  const w = new BincodeWriter()
    .bytes(MINISO_MAGIC)
    .varint(MINISO_VERSION)
    .string(data.appVersion)
    .varint(data.entries.length);
  for (const e of data.entries) {
    for (const [name, value] of Object.entries(e)) {
      if (!Number.isInteger(value) || value < 0 || value > U32_MAX)
        throw new RangeError(`miniso table ${name} ${value} is not a u32`);
    }
    w.varint(e.minimal).varint(e.full).varint(e.length);
  }
  const out = w.bytes(data.digest).byteVec(data.xzpacked).toBuffer();
  if (out.length > MINISO_MAX_BYTES) {
    throw new FormatError(`encoding miniso data: ${out.length} bytes exceed the ${MINISO_MAX_BYTES}-byte limit`, {
      size: out.length,
    });
  }
  return out;
}
