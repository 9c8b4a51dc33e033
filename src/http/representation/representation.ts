// What the HTTP range layer serves: a sized, versioned byte source.
//
// Every artifact (spliced ISO, PXE initrd, boot artifact, small text file) is
// handed to the range layer (src/http/representation/serve-representation.ts) as one of these.
// This module only declares the shape; it does no I/O.
import type { Readable } from 'node:stream';
import type { KernelIo } from '../../kernel-io/kernel-io.js';

/** An open file whose descriptor a sender may hand to sendfile(2). */
export interface SendableFile {
  /**
   * The descriptor while bytes may be sent from it; undefined once the file is closed or no longer
   * trusted. Valid only until the caller yields to the event loop (the file may be closed then).
   */
  descriptor(): number | undefined;
}

/** Where some bytes of a representation lie: a stretch of an open file, or bytes in memory. */
export type BodyStretch =
  | {
      kind: 'file';
      file: SendableFile;
      /** Offset in the file of the stretch's first byte. */
      offset: number;
      length: number;
      /** Offset in the representation of the stretch's first byte (for readInto). */
      position: number;
    }
  | { kind: 'memory'; bytes: Uint8Array };

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
  /**
   * Optional, with readInto: readInto done now through `io`'s no-wait read, when every byte is in
   * memory or the page cache: the count copied (all of `length`), or -1 when some byte is not
   * (nothing to rely on in `target` then: use readInto). Never throws for I/O: a failure is -1,
   * and readInto reports it. Makes the same checks of the file as readInto.
   */
  readIntoCached?(io: KernelIo, target: Buffer, targetOffset: number, length: number, position: number): number;
  /**
   * Optional, with readInto: the bytes `start..end` (inclusive) in order, as stretches of an open
   * file and bytes in memory, so that file bytes can go from the page cache to the socket without a
   * copy through this process (sendfile(2)). A sender still reads the last bytes of every file
   * stretch through readInto, after sending the rest: the checks that readInto makes of the file
   * (e.g. that it has not changed since it was verified) then cover everything sent before, and no
   * response completes without them.
   */
  stretches?(start: number, end: number): BodyStretch[];
  /**
   * Optional, with readInto: the bytes at `position..position + length - 1` as buffers to write to
   * a plain socket, when every byte is in memory or the page cache (file bytes as views of a
   * read-only mapping: the kernel copies them from the page cache, one copy fewer than a read);
   * undefined otherwise. The views are for the kernel only, never to be read in this process (a
   * truncated file's page is a SIGBUS here), so never for TLS. As with stretches(), the writer then
   * reads the bytes after them through readInto or readIntoCached, whose file checks cover them.
   */
  cachedViews?(io: KernelIo, position: number, length: number): Buffer[] | undefined;
}
