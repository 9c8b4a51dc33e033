// gzip (RFC 1952) members: encode with zlib, decode exactly one member and say where it ended.
//
// Decoding parses the member header itself and inflates the raw deflate data, so it knows the
// member's exact length even when another format follows without padding (initrds are often
// `cpio | gzip` + `cpio | xz` + ...). The CRC32 and ISIZE trailer are verified. `maxOutput` bounds
// the inflated size (zlib stops there), so a small bomb cannot take the process's memory.
// Does not: handle concatenated members (the caller loops, see compression.ts), or stream.

import { crc32, gzipSync, inflateRawSync } from 'node:zlib';

import { FormatError, withContext } from '../errors.js';
import { decompressedTooLarge } from './decompress-limit.js';

export const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const FRESERVED = 0xe0;

/** gzip with zlib's defaults (level 6, mtime 0, no name): the same input gives the same bytes. */
export function gzipEncode(data: Uint8Array): Buffer {
  return gzipSync(data);
}

export interface DecodedMember {
  data: Buffer;
  /** Compressed bytes the member occupied, header and trailer included. */
  consumed: number;
}

/** Decodes the gzip member starting at bytes[0]; bytes after it are left alone. */
export function gunzipMember(bytes: Uint8Array, maxOutput = Number.POSITIVE_INFINITY): DecodedMember {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (n: number, what: string): void => {
    if (buf.length < n) throw new FormatError(`truncated gzip member (${what})`, { length: buf.length });
  };
  need(10, 'header');
  if (buf[0] !== 0x1f || buf[1] !== 0x8b) throw new FormatError('not gzip data (bad magic)');
  if (buf[2] !== 8) throw new FormatError(`unsupported gzip compression method ${buf[2]}`);
  const flags = buf[3]!;
  if (flags & FRESERVED) throw new FormatError(`gzip header has reserved flag bits set (0x${flags.toString(16)})`);
  let offset = 10;
  if (flags & FEXTRA) {
    need(offset + 2, 'extra field length');
    offset += 2 + buf.readUInt16LE(offset);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const nul = buf.indexOf(0, offset);
      if (nul < 0) throw new FormatError('truncated gzip member (unterminated name or comment)');
      offset = nul + 1;
    }
  }
  if (flags & FHCRC) offset += 2;
  need(offset, 'header');

  const limit = Number.isFinite(maxOutput) ? { maxOutputLength: Math.max(1, maxOutput) } : {};
  const inflated = withContext(
    'corrupt gzip data',
    () =>
      inflateRawSync(buf.subarray(offset), { info: true, ...limit }) as unknown as {
        buffer: Buffer;
        engine: { bytesWritten: number };
      },
    (message, cause) =>
      (cause as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
        ? decompressedTooLarge(maxOutput, cause)
        : new FormatError(message, { offset }, { cause }),
  );
  const trailer = offset + inflated.engine.bytesWritten;
  need(trailer + 8, 'trailer');
  const data = inflated.buffer;
  const expectedCrc = buf.readUInt32LE(trailer);
  const expectedSize = buf.readUInt32LE(trailer + 4);
  if (crc32(data) !== expectedCrc) throw new FormatError('gzip CRC32 mismatch', { expected: expectedCrc });
  if (data.length % 0x1_0000_0000 !== expectedSize) {
    throw new FormatError('gzip ISIZE mismatch', { expected: expectedSize, actual: data.length });
  }
  return { data, consumed: trailer + 8 };
}
