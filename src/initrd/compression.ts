// Compression of initrd archives: the two encoders bootsmith writes, and format sniffing.
//
// Encoders: `gzip` (zlib, the default; what assisted-image-service writes) and `xz` with the
// CRC32 check (what coreos-installer writes; needs the system `xz`). The kernel accepts both.
// Sniffing follows coreos-installer's DecompressReader (src/io/compress.rs): gzip 1f 8b,
// xz fd 37 7a 58 5a 00, zstd 28 b5 2f fd (or a skippable frame), anything else is raw.
// Decoding handles a run of compressed streams, in any mix of formats, directly adjacent or
// separated by zero padding, with zero padding after the last (gzip multi-member files, xz
// stream padding, zstd multi-frame files all fall out of this).
// Does not: parse cpio (see cpio.ts / initrd.ts), stream, or handle bzip2/lzma/lz4/lzo
// (the kernel can, CoreOS initrds do not use them).

import { BadRequestError, FormatError } from '../errors.js';
import { skipZeros } from './cpio.js';
import { GZIP_MAGIC, gunzipMember, gzipEncode } from './gzip.js';
import { XZ_MAGIC, xzDecodeStream, xzEncode, xzStreamLength } from './xz.js';
import { isZstdMagic, zstdDecodeFrames, zstdFramesLength } from './zstd.js';

/** What bootsmith can write. */
export type Compression = 'gzip' | 'xz';
export const COMPRESSIONS: readonly Compression[] = ['gzip', 'xz'];

/** What bootsmith can read. */
export type DataFormat = 'gzip' | 'xz' | 'zstd' | 'raw';

export function sniffFormat(bytes: Uint8Array, offset = 0): DataFormat {
  const startsWith = (magic: Buffer): boolean => magic.equals(bytes.subarray(offset, offset + magic.length));
  if (startsWith(GZIP_MAGIC)) return 'gzip';
  if (startsWith(XZ_MAGIC)) return 'xz';
  if (isZstdMagic(bytes, offset)) return 'zstd';
  return 'raw';
}

export async function compress(data: Uint8Array, compression: Compression): Promise<Buffer> {
  switch (compression) {
    case 'gzip':
      return gzipEncode(data);
    case 'xz':
      return xzEncode(data);
    default: {
      const unknown: never = compression;
      throw new BadRequestError(`unknown compression ${JSON.stringify(unknown)} (expected gzip or xz)`);
    }
  }
}

export interface DecodedStream {
  format: Exclude<DataFormat, 'raw'>;
  data: Buffer;
  /** Compressed bytes the stream occupied. */
  consumed: number;
}

/**
 * Decodes the one compressed stream (gzip member, xz stream, zstd frames) at bytes[0]; a stream
 * that expands past `maxOutput` bytes is a FormatError (decoding stops there).
 */
export async function decodeStream(bytes: Uint8Array, maxOutput = Number.POSITIVE_INFINITY): Promise<DecodedStream> {
  const format = sniffFormat(bytes);
  switch (format) {
    case 'gzip': {
      const { data, consumed } = gunzipMember(bytes, maxOutput);
      return { format, data, consumed };
    }
    case 'xz': {
      const consumed = xzStreamLength(bytes);
      return { format, data: await xzDecodeStream(bytes.subarray(0, consumed), maxOutput), consumed };
    }
    case 'zstd': {
      const consumed = zstdFramesLength(bytes);
      return { format, data: zstdDecodeFrames(bytes.subarray(0, consumed), maxOutput), consumed };
    }
    case 'raw':
      throw new FormatError('data is not gzip, xz or zstd compressed');
  }
}

/**
 * Sniffs `bytes`: raw data is returned as is; compressed data is decoded, including every
 * further compressed stream that follows (after optional zero padding). Zero padding at the end
 * is ignored; any other trailing data is a FormatError.
 */
export async function decompress(bytes: Uint8Array): Promise<Buffer> {
  if (sniffFormat(bytes) === 'raw') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (sniffFormat(bytes, offset) === 'raw') {
      throw new FormatError('trailing data after compressed stream', { offset, length: bytes.length });
    }
    const stream = await decodeStream(bytes.subarray(offset));
    parts.push(stream.data);
    offset = skipZeros(bytes, offset + stream.consumed);
  }
  return Buffer.concat(parts);
}
