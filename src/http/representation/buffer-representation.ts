// A Representation over a small in-memory buffer (addrsize files, scripts).
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { Representation } from './representation.js';

export function bufferRepresentation(
  bytes: Buffer,
  options: { lastModified: Date; etag?: string; filename?: string; contentType?: string },
): Representation {
  return {
    size: bytes.length,
    etag: options.etag ?? `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`,
    lastModified: options.lastModified,
    ...(options.filename ? { filename: options.filename } : {}),
    ...(options.contentType ? { contentType: options.contentType } : {}),
    stream: (start, end) => Readable.from([bytes.subarray(start, end + 1)]),
  };
}
