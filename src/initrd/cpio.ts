// newc ("070701") cpio archives, the format the Linux kernel unpacks into its initramfs.
//
// Writes: regular files only, each preceded by the directories it needs (the kernel does not
// create missing parents), members sorted by the bytes of their UTF-8 path, the `TRAILER!!!`
// entry last. Header fields match what coreos-installer writes through the `cpio` crate
// (src/io/initrd.rs): lowercase 8-digit hex, ino = position of the entry in the archive
// (0, 1, 2 ...; the trailer has ino 0), uid 0, gid 0, nlink 1, mtime 0, device numbers 0,
// check 0; directories are S_IFDIR|0755; the name is NUL-terminated and header+name and data
// are each zero-padded to a multiple of 4 bytes. The same members always give the same bytes.
//
// Reads: one or more archives concatenated, with zero padding between them, in "070701" or
// "070702" (crc, checksum verified) form, hex in either case, names padded with extra NULs
// (dracut-cpio does this). Every entry is returned, directories and symlinks included;
// hard links are not resolved. Does not write or extract anything to disk, does not
// decompress (see compression.ts and initrd.ts), and does not write "070702" or old formats.

import { BadRequestError, FormatError } from '../errors.js';

/** A file to put into an archive. */
export interface CpioFileInput {
  /** Relative path without `.`/`..` components, e.g. `etc/coreos-firstboot-network/a.nmconnection`. */
  path: string;
  data: Uint8Array;
  /** Permission bits (at most 0o7777). Default 0o600, like coreos-installer. */
  mode?: number;
}

/** One entry read from an archive (the trailer is not reported). */
export interface CpioEntry {
  path: string;
  /** Full st_mode: file type bits and permissions. */
  mode: number;
  data: Buffer;
  ino: number;
  uid: number;
  gid: number;
  nlink: number;
  mtime: number;
  devMajor: number;
  devMinor: number;
  rdevMajor: number;
  rdevMinor: number;
}

export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const DEFAULT_FILE_MODE = 0o600;
export const DIRECTORY_MODE = S_IFDIR | 0o755;

const MAGIC_NEWC = '070701';
const MAGIC_CRC = '070702';
const HEADER_LENGTH = 110;
const TRAILER_NAME = 'TRAILER!!!';
const MAX_FIELD = 0xffffffff;

export function isRegularFile(entry: Pick<CpioEntry, 'mode'>): boolean {
  return (entry.mode & S_IFMT) === S_IFREG;
}

export function isDirectory(entry: Pick<CpioEntry, 'mode'>): boolean {
  return (entry.mode & S_IFMT) === S_IFDIR;
}

/** Bytes of zero padding that bring `length` up to a multiple of 4. */
export function padTo4(length: number): number {
  return (4 - (length % 4)) % 4;
}

// ---------------------------------------------------------------------------------------------
// Writer

interface PlannedEntry {
  path: string;
  mode: number;
  data: Uint8Array;
}

/** Serializes `files` (plus their parent directories and the trailer) as one newc archive. */
export function writeCpio(files: readonly CpioFileInput[]): Buffer {
  const sorted = files.map(validateInput).sort((a, b) => Buffer.compare(a.key, b.key));
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    if (prev.path === cur.path) {
      throw new BadRequestError(`cpio member ${JSON.stringify(cur.path)} is given twice`, { path: cur.path });
    }
  }

  const entries: PlannedEntry[] = [];
  const filePaths = new Set(sorted.map((f) => f.path));
  // A virtual working directory: walking the sorted paths, only the directories not shared with
  // the previous file's directory are new. Paths with a common prefix sort next to each other,
  // so no directory is ever emitted twice.
  let cwd: string[] = [];
  for (const file of sorted) {
    const parent = file.path.split('/');
    parent.pop();
    let common = 0;
    while (common < cwd.length && common < parent.length && cwd[common] === parent[common]) common++;
    cwd = cwd.slice(0, common);
    for (const component of parent.slice(common)) {
      cwd.push(component);
      const dir = cwd.join('/');
      if (filePaths.has(dir)) {
        throw new BadRequestError(`cpio member ${JSON.stringify(dir)} is both a file and a directory`, { path: dir });
      }
      entries.push({ path: dir, mode: DIRECTORY_MODE, data: new Uint8Array(0) });
    }
    entries.push({ path: file.path, mode: S_IFREG | file.mode, data: file.data });
  }

  const chunks: Uint8Array[] = [];
  let offset = 0;
  const push = (chunk: Uint8Array): void => {
    chunks.push(chunk);
    offset += chunk.length;
  };
  entries.forEach((entry, index) => {
    push(encodeHeader(entry.path, { ino: index, mode: entry.mode, fileSize: entry.data.length }));
    push(entry.data);
    push(Buffer.alloc(padTo4(offset)));
  });
  push(encodeHeader(TRAILER_NAME, { ino: 0, mode: 0, fileSize: 0 }));
  return Buffer.concat(chunks, offset);
}

function validateInput(file: CpioFileInput): { path: string; mode: number; data: Uint8Array; key: Buffer } {
  const { path } = file;
  const context = { path };
  if (path.length === 0) throw new BadRequestError('cpio member path is empty', context);
  if (path.includes('\0')) throw new BadRequestError('cpio member path contains a NUL byte', context);
  if (path.startsWith('/')) throw new BadRequestError(`cpio member path ${JSON.stringify(path)} is absolute`, context);
  for (const component of path.split('/')) {
    if (component === '' || component === '.' || component === '..') {
      throw new BadRequestError(
        `cpio member path ${JSON.stringify(path)} has an empty, "." or ".." component`,
        context,
      );
    }
  }
  if (path === TRAILER_NAME) throw new BadRequestError(`cpio member path may not be ${TRAILER_NAME}`, context);
  const mode = file.mode ?? DEFAULT_FILE_MODE;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
    throw new BadRequestError(`cpio member mode ${mode} is not a permission mask (0..0o7777)`, { ...context, mode });
  }
  if (file.data.length > MAX_FIELD) {
    throw new BadRequestError(`cpio member ${JSON.stringify(path)} is larger than newc allows (4 GiB - 1)`, context);
  }
  return { path, mode, data: file.data, key: Buffer.from(path, 'utf8') };
}

function encodeHeader(name: string, fields: { ino: number; mode: number; fileSize: number }): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const nameSize = nameBytes.length + 1;
  const values = [fields.ino, fields.mode, 0, 0, 1, 0, fields.fileSize, 0, 0, 0, 0, nameSize, 0];
  const text = MAGIC_NEWC + values.map((v) => v.toString(16).padStart(8, '0')).join('');
  const total = HEADER_LENGTH + nameSize;
  const header = Buffer.alloc(total + padTo4(total));
  header.write(text, 0, 'latin1');
  nameBytes.copy(header, HEADER_LENGTH);
  return header;
}

// ---------------------------------------------------------------------------------------------
// Reader

/** Result of reading a single archive: its entries and the offset just past its trailer. */
export interface CpioArchive {
  entries: CpioEntry[];
  end: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads every archive in `bytes`: archives may follow each other directly or with zero padding
 * between them, and zero padding may follow the last one. Anything else is a FormatError.
 */
export function readCpio(bytes: Uint8Array): CpioEntry[] {
  const entries: CpioEntry[] = [];
  let offset = skipZeros(bytes, 0);
  if (offset === bytes.length) {
    throw new FormatError('cpio data is empty or all zeros', { length: bytes.length });
  }
  while (offset < bytes.length) {
    const archive = readCpioArchive(bytes, offset);
    entries.push(...archive.entries);
    offset = skipZeros(bytes, archive.end);
  }
  return entries;
}

/** Index of the first non-zero byte at or after `offset` (bytes.length if none). */
export function skipZeros(bytes: Uint8Array, offset: number): number {
  let i = offset;
  while (i < bytes.length && bytes[i] === 0) i++;
  return i;
}

/**
 * Reads one archive starting at `start`, up to and including its `TRAILER!!!` entry.
 * Alignment is counted from `start`, as GNU cpio and the kernel do.
 */
export function readCpioArchive(bytes: Uint8Array, start: number): CpioArchive {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: CpioEntry[] = [];
  let offset = start;
  for (;;) {
    const at = offset;
    const context = (): Record<string, unknown> => ({ offset: at, entry: entries.length });
    if (buf.length - at < HEADER_LENGTH) {
      throw new FormatError(at === start ? 'truncated cpio header' : 'cpio archive ends without a TRAILER!!! entry', {
        ...context(),
        available: buf.length - at,
      });
    }
    const magic = buf.toString('latin1', at, at + 6);
    if (magic !== MAGIC_NEWC && magic !== MAGIC_CRC) {
      throw new FormatError(
        `bad cpio magic ${JSON.stringify(magic)} (only newc "070701"/"070702" is supported)`,
        context(),
      );
    }
    const field = (index: number): number => {
      const text = buf.toString('latin1', at + 6 + index * 8, at + 14 + index * 8);
      if (!/^[0-9a-fA-F]{8}$/.test(text)) {
        throw new FormatError(`cpio header field ${index} is not 8 hex digits: ${JSON.stringify(text)}`, context());
      }
      return Number.parseInt(text, 16);
    };
    const ino = field(0);
    const mode = field(1);
    const uid = field(2);
    const gid = field(3);
    const nlink = field(4);
    const mtime = field(5);
    const fileSize = field(6);
    const devMajor = field(7);
    const devMinor = field(8);
    const rdevMajor = field(9);
    const rdevMinor = field(10);
    const nameSize = field(11);
    const check = field(12);

    if (nameSize === 0) throw new FormatError('cpio entry has a zero name size', context());
    const nameStart = at + HEADER_LENGTH;
    const nameEnd = nameStart + nameSize;
    if (nameEnd > buf.length)
      throw new FormatError('cpio entry name runs past the end of the data', { ...context(), nameSize });
    if (buf[nameEnd - 1] !== 0) throw new FormatError('cpio entry name is not NUL-terminated', context());
    let realEnd = nameEnd - 1;
    while (realEnd > nameStart && buf[realEnd - 1] === 0) realEnd--; // dracut-cpio pads names
    let path: string;
    try {
      path = utf8.decode(buf.subarray(nameStart, realEnd));
    } catch (cause) {
      throw new FormatError('cpio entry name is not valid UTF-8', context(), { cause });
    }
    if (path.includes('\0')) throw new FormatError('cpio entry name contains a NUL byte', context());

    const dataStart = nameEnd + padTo4(nameEnd - start);
    const dataEnd = dataStart + fileSize;
    if (dataEnd > buf.length) {
      throw new FormatError(`cpio entry ${JSON.stringify(path)} data runs past the end of the data`, {
        ...context(),
        fileSize,
      });
    }
    offset = dataEnd + padTo4(dataEnd - start);
    if (offset > buf.length) {
      // Some writers omit the final padding of the very last entry; accept that, nothing follows.
      offset = buf.length;
    }

    if (path === TRAILER_NAME) return { entries, end: offset };

    const data = Buffer.from(buf.subarray(dataStart, dataEnd));
    if (magic === MAGIC_CRC) {
      let sum = 0;
      for (const byte of data) sum = (sum + byte) >>> 0;
      if (sum !== check) {
        throw new FormatError(`cpio entry ${JSON.stringify(path)} checksum mismatch`, {
          ...context(),
          expected: check,
          actual: sum,
        });
      }
    }
    entries.push({ path, mode, data, ino, uid, gid, nlink, mtime, devMajor, devMinor, rdevMajor, rdevMinor });
  }
}
