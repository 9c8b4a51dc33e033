// Exact, bounded reads of a byte range of an image file through a FileHandle (or any
// PositionalReader: an image still downloading is read through one that fetches from its source).
//
// Does: check the range against the known file size, loop over short reads, and turn a range
// past the end of the file into a FormatError (a truncated image).
// Does NOT: cache, buffer ahead, or know anything about ISO 9660.

import { FormatError } from '../errors.js';

/** What the ISO reader needs of an open image; a node:fs/promises FileHandle is one. */
export interface PositionalReader {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/** Reads exactly `length` bytes at absolute `offset` of a file of `size` bytes. */
export async function readExactly(
  fh: PositionalReader,
  path: string,
  size: number,
  offset: number,
  length: number,
  what: string,
): Promise<Buffer> {
  const doing = `reading ${length} bytes of ${what} at offset ${offset} of ${path}`;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw new FormatError(`${doing}: invalid range`, { path, offset, length });
  }
  if (offset + length > size) {
    throw new FormatError(`${doing}: range ends beyond the end of the ${size}-byte file (truncated image?)`, {
      path,
      offset,
      length,
      size,
    });
  }
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, offset + done);
    if (bytesRead === 0) {
      throw new FormatError(`${doing}: file ended after ${done} bytes (truncated image?)`, { path, offset, length });
    }
    done += bytesRead;
  }
  return buf;
}
