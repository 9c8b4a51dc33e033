// Response planning: which status, which headers and which body bytes answer a request for
// one representation, decided before anything is written.
//
// Does: 405 for methods other than GET/HEAD; the conditionals (src/http/representation/preconditions.ts);
// 200 with the whole representation, 206 with one range (Content-Range), 206
// multipart/byteranges (RFC 9110 §14.6) with an exact Content-Length, 416 as an error whose
// status and `Content-Range: bytes */N` come from src/error-status.ts (src/http/representation/error-response.ts
// renders it); HEAD gets exactly the GET's status and headers and no body segments. Pure: no sockets, no streams
// (the header strings derived from a representation object are memoized on it, by value-checked WeakMap).
// Does NOT: open sources or write anything (src/http/representation/body-pump.ts), authenticate, compress,
// or choose representations.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { randomUUID } from 'node:crypto';
import { RangeNotSatisfiableError } from '../../errors.js';
import { contentDisposition } from './content-disposition.js';
import { headersForError, statusForError } from '../../error-status.js';
import { evaluatePreconditions } from './preconditions.js';
import { parseRange, type ByteRange } from './range.js';
import type { Representation } from './representation.js';

/** What planning needs to know about a representation: everything but its bytes. */
export type RepresentationMeta = Pick<
  Representation,
  'size' | 'etag' | 'lastModified' | 'contentType' | 'filename' | 'cacheControl'
>;

/** One stretch of the body: optional framing text (latin1) followed by representation bytes start..end. */
export interface Segment {
  readonly prefix: string | undefined;
  readonly start: number;
  readonly end: number;
}

export interface ResponsePlan {
  readonly status: number;
  /** Every header to write, Content-Length included (never chunked). */
  readonly headers: OutgoingHttpHeaders;
  /** The body, in order; empty when there is none (HEAD, 304, 412, 405, empty representation). */
  readonly segments: readonly Segment[];
  /** Framing text after the last segment (the multipart close delimiter); only with segments. */
  readonly trailer: string | undefined;
  /**
   * Set when the answer is an error response (416): status and headers come from the error
   * mapping, and the caller writes it with writeErrorResponse(), body included.
   */
  readonly error?: RangeNotSatisfiableError;
}

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const NO_SEGMENTS: readonly Segment[] = Object.freeze([]);

/**
 * Plans the answer to `method` with `requestHeaders` for `rep` (RFC 9110 §13.2.2 conditionals,
 * then Range/If-Range). `newBoundary` makes multipart boundaries; tests pass a fixed one.
 */
export function planResponse(
  method: string | undefined,
  requestHeaders: IncomingHttpHeaders,
  rep: RepresentationMeta,
  newBoundary: () => string = randomUUID,
): ResponsePlan {
  const head = method === 'HEAD';
  if (!head && method !== 'GET') {
    return bodiless(405, { Allow: 'GET, HEAD', 'Content-Length': '0' });
  }

  const etag = rep.etag;
  const { modifiedSeconds, lastModified, disposition } = derivedStrings(rep);

  const decision = evaluatePreconditions(requestHeaders, { etag, lastModifiedSeconds: modifiedSeconds });
  if (decision === 'precondition-failed') return bodiless(412, { 'Content-Length': '0' });
  if (decision === 'not-modified') {
    // RFC 9110 §15.4.5: the validators and Cache-Control of the 200, no content, no Content-Length.
    const headers: OutgoingHttpHeaders = { ETag: etag };
    if (lastModified !== undefined) headers['Last-Modified'] = lastModified;
    if (rep.cacheControl !== undefined) headers['Cache-Control'] = rep.cacheControl;
    return bodiless(304, headers);
  }

  const size = rep.size;
  const rangeHeader = requestHeaders.range;
  let ranges: readonly ByteRange[] | undefined;
  if (rangeHeader !== undefined && decision !== 'ignore-range') {
    const parsed = parseRange(rangeHeader, size);
    if (parsed.kind === 'unsatisfiable') return errorPlan(new RangeNotSatisfiableError(size, rangeHeader));
    if (parsed.kind === 'ranges') ranges = parsed.ranges;
  }

  const contentType = rep.contentType ?? DEFAULT_CONTENT_TYPE;
  const headers: OutgoingHttpHeaders = {
    'Accept-Ranges': 'bytes',
    ETag: etag,
  };
  if (lastModified !== undefined) headers['Last-Modified'] = lastModified;
  if (rep.cacheControl !== undefined) headers['Cache-Control'] = rep.cacheControl;
  if (disposition !== undefined) headers['Content-Disposition'] = disposition;

  if (ranges === undefined) {
    headers['Content-Type'] = contentType;
    headers['Content-Length'] = String(size);
    const segments = head || size === 0 ? NO_SEGMENTS : [{ prefix: undefined, start: 0, end: size - 1 }];
    return { status: 200, headers, segments, trailer: undefined };
  }
  if (ranges.length === 1) {
    const { start, end } = ranges[0] as ByteRange;
    headers['Content-Type'] = contentType;
    headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    headers['Content-Length'] = String(end - start + 1);
    return {
      status: 206,
      headers,
      segments: head ? NO_SEGMENTS : [{ prefix: undefined, start, end }],
      trailer: undefined,
    };
  }

  // multipart/byteranges. A random boundary cannot collide with the data in practice; part
  // headers are ASCII, so string length = byte length.
  const boundary = newBoundary();
  const parts: Segment[] = [];
  let length = 0;
  for (let k = 0; k < ranges.length; k++) {
    const { start, end } = ranges[k] as ByteRange;
    const prefix =
      `${k === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: ${contentType}\r\n` +
      `Content-Range: bytes ${start}-${end}/${size}\r\n\r\n`;
    parts.push({ prefix, start, end });
    length += prefix.length + (end - start + 1);
  }
  const trailer = `\r\n--${boundary}--\r\n`;
  length += trailer.length;
  headers['Content-Type'] = `multipart/byteranges; boundary=${boundary}`;
  headers['Content-Length'] = String(length);
  return head
    ? { status: 206, headers, segments: NO_SEGMENTS, trailer: undefined }
    : { status: 206, headers, segments: parts, trailer };
}

/** The header strings derived from a representation's metadata (not from the request). */
interface Derived {
  /** HTTP dates have whole seconds; every comparison uses the truncated value. */
  readonly modifiedSeconds: number | undefined;
  readonly lastModified: string | undefined;
  readonly disposition: string | undefined;
  /** What they were derived from: a representation whose fields changed is derived again. */
  readonly fromMs: number;
  readonly fromFilename: string | undefined;
}

/**
 * Derived strings per representation object: the artifact routes hand the same object to every
 * Range request of a storm (src/http/face/artifact-response.ts), so the date is formatted and the
 * disposition built once. Checked against the fields on every use, never stale.
 */
const derived = new WeakMap<RepresentationMeta, Derived>();

function derivedStrings(rep: RepresentationMeta): Derived {
  const ms = rep.lastModified.getTime();
  const known = derived.get(rep);
  if (known !== undefined && Object.is(known.fromMs, ms) && known.fromFilename === rep.filename) return known;
  const modifiedSeconds = Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
  const made: Derived = {
    modifiedSeconds,
    lastModified: modifiedSeconds === undefined ? undefined : rep.lastModified.toUTCString(),
    disposition: rep.filename === undefined ? undefined : contentDisposition(rep.filename),
    fromMs: ms,
    fromFilename: rep.filename,
  };
  derived.set(rep, made);
  return made;
}

function bodiless(status: number, headers: OutgoingHttpHeaders): ResponsePlan {
  return { status, headers, segments: NO_SEGMENTS, trailer: undefined };
}

function errorPlan(error: RangeNotSatisfiableError): ResponsePlan {
  return {
    status: statusForError(error),
    headers: headersForError(error),
    segments: NO_SEGMENTS,
    trailer: undefined,
    error,
  };
}
