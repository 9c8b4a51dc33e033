// zstd decoding (in-process, with the pure-JS `fzstd`), and where a run of zstd frames ends.
//
// A zstd "stream" here is what the `zstd` tool and the kernel treat as one: consecutive
// frames (regular or skippable, RFC 8878) with nothing between them. Their extent is found by
// walking frame and block headers, which carry explicit sizes, so data following the frames is
// left alone. Does not: encode (nothing in bootsmith writes zstd), verify the optional content
// checksum (fzstd skips it), or use dictionaries.

import { Decompress } from 'fzstd';

import { FormatError, withContext } from '../errors.js';
import { decompressedTooLarge } from './decompress-limit.js';

const MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_START = 0x184d2a50;

/** True when the 4 bytes at `offset` start a zstd frame or a skippable frame. */
export function isZstdMagic(bytes: Uint8Array, offset = 0): boolean {
  if (bytes.length - offset < 4) return false;
  const value = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt32LE(offset);
  return value === MAGIC || (value & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_START;
}

/** Length of the run of zstd/skippable frames starting at bytes[0]. */
export function zstdFramesLength(bytes: Uint8Array): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isZstdMagic(buf)) throw new FormatError('not zstd data (bad magic)');
  let pos = 0;
  const need = (n: number): void => {
    if (pos + n > buf.length) throw new FormatError('truncated zstd frame', { offset: pos, length: buf.length });
  };
  while (isZstdMagic(buf, pos)) {
    const frameStart = pos;
    const magic = buf.readUInt32LE(pos);
    pos += 4;
    if (magic !== MAGIC) {
      need(4);
      const size = buf.readUInt32LE(pos);
      pos += 4;
      need(size);
      pos += size;
      continue;
    }
    need(1);
    const descriptor = buf[pos++]!;
    if (descriptor & 0x08) throw new FormatError('zstd frame header has the reserved bit set', { offset: frameStart });
    const singleSegment = (descriptor & 0x20) !== 0;
    const hasChecksum = (descriptor & 0x04) !== 0;
    const dictIdSize = [0, 1, 2, 4][descriptor & 0x03]!;
    const contentSizeFlag = descriptor >> 6;
    const contentSizeSize = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << contentSizeFlag;
    pos += (singleSegment ? 0 : 1) + dictIdSize + contentSizeSize;
    for (;;) {
      need(3);
      const header = buf.readUIntLE(pos, 3);
      pos += 3;
      const last = (header & 1) === 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) throw new FormatError('zstd block has the reserved type', { offset: pos - 3 });
      const stored = type === 1 ? 1 : size;
      need(stored);
      pos += stored;
      if (last) break;
    }
    if (hasChecksum) {
      need(4);
      pos += 4;
    }
  }
  return pos;
}

/**
 * Decodes a run of zstd frames (`bytes` must hold exactly the frames), block by block, stopping
 * with a FormatError as soon as the output passes `maxOutput` bytes.
 */
export function zstdDecodeFrames(bytes: Uint8Array, maxOutput = Number.POSITIVE_INFINITY): Buffer {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const decoder = new Decompress((chunk) => {
    total += chunk.length;
    if (total > maxOutput) throw decompressedTooLarge(maxOutput);
    chunks.push(chunk);
  });
  withContext(
    'corrupt zstd data',
    () => decoder.push(bytes, true),
    (message, cause) => (cause instanceof FormatError ? cause : new FormatError(message, {}, { cause })),
  );
  return Buffer.concat(chunks);
}
