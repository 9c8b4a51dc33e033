// The Primary Volume Descriptor's dates (ECMA-119 8.4.26-8.4.27: volume creation and
// modification date and time), read from the image's own bytes.
//
// Does: find the PVD among the first descriptors and parse its modification date (or, when
// that is unset, its creation date): 16 ASCII digits YYYYMMDDHHMMSScc plus a signed offset
// from GMT in 15-minute steps. The result is the same on every machine holding the same
// bytes, so every replica serves the same `Last-Modified` for the same image (a cache file's
// mtime differs per replica and per download).
// Does NOT: validate the rest of the descriptor (src/iso/volume-descriptor.ts), or look at
// directory record dates.
import { open } from 'node:fs/promises';
import { SECTOR_SIZE } from './directory-record.js';
import type { PositionalReader } from './read-range.js';

/** Volume descriptors start at sector 16; real ISOs put the PVD within the first few. */
const FIRST_DESCRIPTOR_SECTOR = 16;
/** A set ends with a terminator long before this; more descriptors than that is not an ISO we serve. */
const MAX_DESCRIPTORS = 32;
const TYPE_PRIMARY = 1;
const TYPE_TERMINATOR = 255;
const CREATION_DATE_OFFSET = 813;
const MODIFICATION_DATE_OFFSET = 830;
const DATE_FIELD_LENGTH = 17;

/** Parses one 17-byte ECMA-119 8.4.26.1 date field; undefined when unset (all '0' or NUL) or malformed. */
export function parseVolumeDate(field: Buffer): Date | undefined {
  if (field.length < DATE_FIELD_LENGTH) return undefined;
  const digits = field.toString('latin1', 0, 16);
  if (!/^\d{16}$/.test(digits) || /^0+$/.test(digits)) return undefined;
  const n = (from: number, to: number) => Number(digits.slice(from, to));
  const [year, month, day, hour, minute, second, centi] = [
    n(0, 4),
    n(4, 6),
    n(6, 8),
    n(8, 10),
    n(10, 12),
    n(12, 14),
    n(14, 16),
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetMinutes = field.readInt8(16) * 15;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, centi * 10) - offsetMinutes * 60_000;
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

/** The PVD's modification (else creation) date of the ISO at `path`; undefined when it has none. */
export async function readVolumeDate(path: string): Promise<Date | undefined> {
  const fh = await open(path, 'r');
  try {
    return await volumeDateOf(fh);
  } finally {
    await fh.close();
  }
}

/** The same through an open reader (an image still downloading); the reader stays open. */
export async function volumeDateOf(reader: PositionalReader): Promise<Date | undefined> {
  const sector = Buffer.alloc(SECTOR_SIZE);
  for (let i = 0; i < MAX_DESCRIPTORS; i++) {
    const { bytesRead } = await reader.read(sector, 0, SECTOR_SIZE, (FIRST_DESCRIPTOR_SECTOR + i) * SECTOR_SIZE);
    if (bytesRead < SECTOR_SIZE || sector.toString('latin1', 1, 6) !== 'CD001') return undefined;
    const type = sector.readUInt8(0);
    if (type === TYPE_TERMINATOR) return undefined;
    if (type !== TYPE_PRIMARY) continue;
    return (
      parseVolumeDate(sector.subarray(MODIFICATION_DATE_OFFSET, MODIFICATION_DATE_OFFSET + DATE_FIELD_LENGTH)) ??
      parseVolumeDate(sector.subarray(CREATION_DATE_OFFSET, CREATION_DATE_OFFSET + DATE_FIELD_LENGTH))
    );
  }
  return undefined;
}
