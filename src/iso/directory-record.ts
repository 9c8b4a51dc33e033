// ISO 9660 directory records: the fixed 33-byte header, the identifier and the System Use area,
// parsed out of an in-memory directory extent (ECMA-119 9.1).
//
// Does: walk the records of one directory buffer, skipping the zero padding at the end of each
// sector, and report malformed records as plain Errors (the caller adds file context).
// Does NOT: read from disk, decode names (src/iso/iso-names.ts), interpret Rock Ridge
// (src/iso/rock-ridge.ts), or merge multi-extent files (src/iso/iso9660.ts).

export const SECTOR_SIZE = 2048;

/** File flags bit: the record describes a directory. */
export const FLAG_DIRECTORY = 0x02;
/** File flags bit: this is not the final extent of a multi-extent file. */
export const FLAG_MULTI_EXTENT = 0x80;

const HEADER_SIZE = 33;

export interface DirectoryRecord {
  /** Byte position of the record inside the directory extent. */
  position: number;
  /** Logical block of the extent (the data starts `extAttrSectors` blocks later). */
  lba: number;
  /** Length of the extended attribute record, in logical blocks. */
  extAttrSectors: number;
  dataLength: number;
  flags: number;
  /** Non-zero for interleaved files. */
  fileUnitSize: number;
  identifier: Buffer;
  /** The System Use area (Rock Ridge / SUSP entries live here). */
  systemUse: Buffer;
}

/** True for the `\0` (self) and `\1` (parent) identifiers. */
export function isSelfOrParent(record: DirectoryRecord): boolean {
  return record.identifier.length === 1 && (record.identifier[0] === 0 || record.identifier[0] === 1);
}

/** Parses the record starting at `pos` of `buf`; `buf[pos]` must be its non-zero length byte. */
export function parseDirectoryRecord(buf: Buffer, pos: number): DirectoryRecord {
  const length = buf.readUInt8(pos);
  if (length < HEADER_SIZE + 1) {
    throw new Error(
      `directory record at byte ${pos} is ${length} bytes, shorter than the ${HEADER_SIZE + 1}-byte minimum`,
    );
  }
  if (pos + length > buf.length) {
    throw new Error(
      `directory record at byte ${pos} (${length} bytes) runs past the end of the ${buf.length}-byte directory`,
    );
  }
  const nameLength = buf.readUInt8(pos + 32);
  if (HEADER_SIZE + nameLength > length) {
    throw new Error(
      `directory record at byte ${pos}: identifier of ${nameLength} bytes does not fit in the ${length}-byte record`,
    );
  }
  // The identifier is followed by one padding byte when its length is even.
  const suStart = Math.min(length, HEADER_SIZE + nameLength + (nameLength % 2 === 0 ? 1 : 0));
  return {
    position: pos,
    extAttrSectors: buf.readUInt8(pos + 1),
    lba: buf.readUInt32LE(pos + 2),
    dataLength: buf.readUInt32LE(pos + 10),
    flags: buf.readUInt8(pos + 25),
    fileUnitSize: buf.readUInt8(pos + 26),
    identifier: buf.subarray(pos + HEADER_SIZE, pos + HEADER_SIZE + nameLength),
    systemUse: buf.subarray(pos + suStart, pos + length),
  };
}

/**
 * Yields every record of a directory extent in on-disk order. A zero length byte means the rest
 * of the sector is padding; records never span sectors.
 */
export function* directoryRecords(buf: Buffer): Generator<DirectoryRecord> {
  let pos = 0;
  while (pos < buf.length) {
    const length = buf.readUInt8(pos);
    if (length === 0) {
      pos = (Math.floor(pos / SECTOR_SIZE) + 1) * SECTOR_SIZE;
      continue;
    }
    const record = parseDirectoryRecord(buf, pos);
    yield record;
    pos += length;
  }
}
