// Reading a whole initrd image the way the kernel unpacks it: a sequence of newc archives,
// each either uncompressed or inside a gzip/xz/zstd stream, with zero padding allowed before,
// between and after them. Like the kernel (init/initramfs.c), an uncompressed archive must start
// at an offset that is a multiple of 4 (coreos-installer does not check this; we do, because an
// image we would accept and the kernel would not is a bug); a compressed stream may start anywhere. One compressed stream may hold
// several archives. Entries come back in archive order; when a path repeats, the last one is
// what the kernel leaves behind (see `lastByPath`).
// Does not: resolve hard links, apply entries to a filesystem, or read early-microcode
// layouts differently from any other uncompressed archive (they are plain newc too).

import { FormatError } from '../errors.js';
import { decodeStream, sniffFormat } from './compression.js';
import { decompressedTooLarge } from './decompress-limit.js';
import { type CpioEntry, readCpio, readCpioArchive, skipZeros } from './cpio.js';

/**
 * The entries of every archive in `bytes`. `maxDecompressed` bounds the bytes all compressed
 * streams together may expand to (FormatError past it; decoding stops there).
 */
export async function readInitrd(bytes: Uint8Array, maxDecompressed = Number.POSITIVE_INFINITY): Promise<CpioEntry[]> {
  const entries: CpioEntry[] = [];
  let budget = maxDecompressed;
  let offset = skipZeros(bytes, 0);
  while (offset < bytes.length) {
    if (sniffFormat(bytes, offset) === 'raw') {
      if (offset % 4 !== 0) {
        throw new FormatError(
          `uncompressed cpio archive at offset ${offset} is not 4-byte aligned; the kernel would reject it`,
          {
            offset,
          },
        );
      }
      const archive = readCpioArchive(bytes, offset);
      entries.push(...archive.entries);
      offset = skipZeros(bytes, archive.end);
    } else {
      const stream = await decodeStream(bytes.subarray(offset), budget).catch((err: unknown) => {
        // The stream passed what was left of the budget: report the caller's whole limit.
        if (err instanceof FormatError && err.context.limit === budget && budget !== maxDecompressed) {
          throw decompressedTooLarge(maxDecompressed, err);
        }
        throw err;
      });
      budget -= stream.data.length;
      entries.push(...readCpio(stream.data));
      offset = skipZeros(bytes, offset + stream.consumed);
    }
  }
  return entries;
}

/** The last entry for each path, in order of first appearance. */
export function lastByPath(entries: readonly CpioEntry[]): Map<string, CpioEntry> {
  const result = new Map<string, CpioEntry>();
  for (const entry of entries) result.set(entry.path, entry);
  return result;
}
