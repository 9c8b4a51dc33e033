// The legacy embed-area headers at the end of the ISO 9660 System Area (first 32 KiB) of CoreOS
// live ISOs built before coreos/igninfo.json and coreos/kargs.json existed (2020-2021).
//
// Layout, as coreos-installer reads/read it (src/live/embed.rs; the `coreiso+` reader was
// dropped in commit 7b68ee0 "live: find ISO Ignition embed area using ISO9660 parser"):
//   32768-24 .. 32768     `coreiso+` header, 24 bytes:
//       8 bytes magic "coreiso+", u64 LE offset of the Ignition area, u64 LE length.
//   32768-96 .. 32768-24  `coreKarg` header, 72 bytes:
//       8 bytes magic "coreKarg", u64 LE length of every kargs area, u64 LE offset of the
//       default kargs (the /.cmdline file), 6 x u64 LE offsets of kargs areas (0 ends the list).
// All offsets are absolute byte offsets into the image.
//
// Does: read the 96 bytes before offset 32768 and parse either header out of them.
// Does NOT: check the offsets they hold against the image (src/iso/ignition-area.ts and
// src/iso/kargs-areas.ts do).

import { FormatError, withContext } from '../errors.js';
import type { IsoFs } from './iso9660.js';

export const SYSTEM_AREA_SIZE = 32 * 1024;
const IGNITION_HEADER_SIZE = 24;
const KARGS_HEADER_SIZE = 72;
const KARGS_HEADER_MAX_OFFSETS = 6;

/** Offset and length of the tail of the System Area that holds both headers. */
export const LEGACY_HEADERS_OFFSET = SYSTEM_AREA_SIZE - IGNITION_HEADER_SIZE - KARGS_HEADER_SIZE;
export const LEGACY_HEADERS_LENGTH = IGNITION_HEADER_SIZE + KARGS_HEADER_SIZE;

export interface LegacyIgnitionHeader {
  offset: number;
  length: number;
}

export interface LegacyKargsHeader {
  /** Length of every kargs area and of the default-kargs region. */
  areaSize: number;
  defaultOffset: number;
  areaOffsets: number[];
}

/** `tail` is the 96 bytes at LEGACY_HEADERS_OFFSET. Undefined when there is no `coreiso+` magic. */
export function parseLegacyIgnitionHeader(tail: Buffer): LegacyIgnitionHeader | undefined {
  const header = tail.subarray(KARGS_HEADER_SIZE, KARGS_HEADER_SIZE + IGNITION_HEADER_SIZE);
  if (header.toString('latin1', 0, 8) !== 'coreiso+') return undefined;
  return { offset: u64(header, 8, 'coreiso+ area offset'), length: u64(header, 16, 'coreiso+ area length') };
}

/** `tail` is the 96 bytes at LEGACY_HEADERS_OFFSET. Undefined when there is no `coreKarg` magic. */
export function parseLegacyKargsHeader(tail: Buffer): LegacyKargsHeader | undefined {
  const header = tail.subarray(0, KARGS_HEADER_SIZE);
  if (header.toString('latin1', 0, 8) !== 'coreKarg') return undefined;
  const areaOffsets: number[] = [];
  for (let i = 0; i < KARGS_HEADER_MAX_OFFSETS; i++) {
    const offset = u64(header, 24 + 8 * i, `coreKarg area offset #${i + 1}`);
    if (offset === 0) break;
    areaOffsets.push(offset);
  }
  return {
    areaSize: u64(header, 8, 'coreKarg area length'),
    defaultOffset: u64(header, 16, 'coreKarg default kargs offset'),
    areaOffsets,
  };
}

/** The image's `coreiso+` header, or undefined when it has none. */
export async function readLegacyIgnitionHeader(iso: IsoFs): Promise<LegacyIgnitionHeader | undefined> {
  return readHeader(iso, 'coreiso+', parseLegacyIgnitionHeader);
}

/** The image's `coreKarg` header, or undefined when it has none. */
export async function readLegacyKargsHeader(iso: IsoFs): Promise<LegacyKargsHeader | undefined> {
  return readHeader(iso, 'coreKarg', parseLegacyKargsHeader);
}

async function readHeader<T>(iso: IsoFs, name: string, parse: (tail: Buffer) => T | undefined): Promise<T | undefined> {
  const tail = await iso.readAt(LEGACY_HEADERS_OFFSET, LEGACY_HEADERS_LENGTH, 'System Area embed headers');
  return withContext(
    `reading ${name} header of ${iso.path}`,
    () => parse(tail),
    (message, cause) => new FormatError(message, { path: iso.path }, { cause }),
  );
}

function u64(buf: Buffer, pos: number, what: string): number {
  const value = buf.readBigUInt64LE(pos);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${what} ${value} is implausibly large`);
  return Number(value);
}
