// ISO 9660 volume descriptors (ECMA-119 8): classify one 2048-byte descriptor and parse the
// Primary Volume Descriptor fields bootsmith needs.
//
// Does: check the `CD001` identifier and version, read the system/volume ids, the volume space
// size, the logical block size and the root directory record.
// Does NOT: read from disk (src/iso/iso9660.ts walks the descriptor set), or parse boot,
// supplementary (Joliet) or partition descriptors beyond their type byte.

import { FLAG_DIRECTORY, parseDirectoryRecord, SECTOR_SIZE, type DirectoryRecord } from './directory-record.js';

export const TYPE_BOOT = 0;
export const TYPE_PRIMARY = 1;
export const TYPE_SUPPLEMENTARY = 2;
export const TYPE_TERMINATOR = 255;

export interface PrimaryVolumeDescriptor {
  systemId: string;
  volumeId: string;
  /** Size of the volume in bytes (volume space size x logical block size). */
  volumeBytes: number;
  root: DirectoryRecord;
}

/** Returns the descriptor type byte after checking the standard identifier and version. */
export function descriptorType(sector: Buffer): number {
  if (sector.length < SECTOR_SIZE)
    throw new Error(`volume descriptor is ${sector.length} bytes, expected ${SECTOR_SIZE}`);
  const id = sector.toString('latin1', 1, 6);
  if (id !== 'CD001')
    throw new Error(`no ISO 9660 volume descriptor (identifier ${JSON.stringify(id)}, expected "CD001")`);
  const version = sector.readUInt8(6);
  if (version !== 1) throw new Error(`unknown volume descriptor version ${version}`);
  return sector.readUInt8(0);
}

/** Parses a descriptor already known to be of type 1 (primary). */
export function parsePrimaryVolumeDescriptor(sector: Buffer): PrimaryVolumeDescriptor {
  const blockSize = sector.readUInt16LE(128);
  if (blockSize !== SECTOR_SIZE)
    throw new Error(`unsupported logical block size ${blockSize} (only ${SECTOR_SIZE} is supported)`);
  const root = parseDirectoryRecord(sector.subarray(156, 156 + 34), 0);
  if ((root.flags & FLAG_DIRECTORY) === 0) throw new Error('root directory record is not a directory');
  return {
    systemId: descriptorString(sector, 8, 32),
    volumeId: descriptorString(sector, 40, 32),
    volumeBytes: sector.readUInt32LE(80) * SECTOR_SIZE,
    root,
  };
}

/** A space-padded a-/d-character field, trailing spaces and NULs removed. */
function descriptorString(sector: Buffer, start: number, length: number): string {
  return sector.toString('latin1', start, start + length).replace(/[ \0]+$/, '');
}
