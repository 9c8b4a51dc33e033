// The contract every remote image source (http(s)://, s3://) fulfils for the downloader
// (src/images/fetch/download.ts): open the object's bytes from an offset, resuming where the
// remote supports it, and say where the bytes really start.
// Types, the small Content-Range parser and a bounded body collector; no requests.
import type { Readable } from 'node:stream';

export interface OpenRequest {
  /** First byte wanted; 0 for a fresh download. */
  offset: number;
  /** Validator (strong ETag or Last-Modified) of the first response, to refuse resuming a changed object. */
  validator: string | undefined;
  signal: AbortSignal;
}

export type RemoteBody =
  | {
      kind: 'bytes';
      /** `offset` when resumed, 0 when the remote sent the whole object instead. */
      start: number;
      /** Size of the whole object when the remote said so. */
      total: number | undefined;
      validator: string | undefined;
      stream: Readable;
    }
  /** Nothing left to fetch: the remote says the object ends exactly at `offset`. */
  | { kind: 'complete'; total: number };

export interface RemoteSource {
  /** The URL without credentials or query string (presigned URLs carry secrets): for messages. */
  readonly description: string;
  open(request: OpenRequest): Promise<RemoteBody>;
  /**
   * Bytes `start`..`end` (inclusive) of the object, for serving an image before its download
   * finished (src/images/fetch/source-backed-file.ts). With a `validator` the source must still
   * hold that version (If-Range / If-Match), else it fails. The caller bounds the length and
   * the time (`signal`).
   */
  readRange(start: number, end: number, validator: string | undefined, signal: AbortSignal): Promise<Buffer>;
  close(): void;
}

/** Collects a ranged body of exactly `length` bytes; a longer or shorter one is an error. */
export async function collectExactly(stream: Readable, length: number, what: string): Promise<Buffer> {
  const out = Buffer.allocUnsafe(length);
  let filled = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (filled + chunk.length > length) {
      stream.destroy();
      throw new Error(`${what}: the source sent more than the ${length} bytes asked for`);
    }
    chunk.copy(out, filled);
    filled += chunk.length;
  }
  if (filled !== length) throw new Error(`${what}: the source sent ${filled} of ${length} bytes`);
  return out;
}

/** `bytes 100-199/200` → {start: 100, end: 199, total: 200}; `*` total → undefined. */
export function parseContentRange(
  value: string | undefined,
): { start: number; end: number; total: number | undefined } | undefined {
  const m = value === undefined ? null : /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value.trim());
  if (!m) return undefined;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? undefined : Number(m[3]) };
}

/** The size in the Content-Range of a 416 (`bytes` then a star, a slash and the size); undefined without one. */
export function parseUnsatisfiedRange(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /^bytes \*\/(\d+)$/.exec(value.trim());
  return m ? Number(m[1]) : undefined;
}
