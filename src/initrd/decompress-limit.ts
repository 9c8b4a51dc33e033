// The one error for compressed data that expands past a caller's limit (a decompression bomb),
// shared by the gzip, xz and zstd decoders. Does NOT: choose limits (callers name their own).
import { FormatError } from '../errors.js';

export function decompressedTooLarge(limit: number, cause?: unknown): FormatError {
  return new FormatError(`compressed data expands to more than the ${limit}-byte limit`, { limit }, { cause });
}
