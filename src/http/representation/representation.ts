// What the HTTP range layer serves: a sized, versioned byte source.
//
// Every artifact (spliced ISO, PXE initrd, boot artifact, small text file) is
// handed to the range layer (src/http/representation/serve-representation.ts) as one of these.
// This module only declares the shape; it does no I/O.
import type { Readable } from 'node:stream';

export interface Representation {
  /** Total size in bytes; always known up front (responses are never chunked). */
  size: number;
  /** Strong entity tag, including the surrounding double quotes, e.g. `"a1b2…"`. */
  etag: string;
  lastModified: Date;
  /** Defaults to application/octet-stream. */
  contentType?: string;
  /** When set, `Content-Disposition: attachment; filename=<filename>`. */
  filename?: string;
  /** Defaults to none; set e.g. `no-store` for answers that must not be cached. */
  cacheControl?: string;
  /**
   * The bytes from `start` to `end` inclusive (0 <= start <= end < size).
   * Must emit exactly end - start + 1 bytes or fail with an error.
   */
  stream(start: number, end: number): Readable;
  /**
   * Optional positional read: copies `length` bytes at `position` into `target` at
   * `targetOffset` and calls back with the count. When present, the range layer streams
   * through a few recycled buffers instead of a Readable (no allocation per chunk).
   */
  readInto?(
    target: Buffer,
    targetOffset: number,
    length: number,
    position: number,
    callback: (err: Error | null, copied: number) => void,
  ): void;
}
