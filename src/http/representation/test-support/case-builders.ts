// Constants, the case type and row builders for the range layer's case tables
// (range-cases.ts, conditional-cases.ts). Test support only.

export const SIZE = 200_000;
export const ETAG = '"v1-abc"';
export const LAST_MODIFIED = new Date(Date.UTC(2024, 4, 17, 10, 20, 30, 456)); // has milliseconds
export const LAST_MODIFIED_HTTP = 'Fri, 17 May 2024 10:20:30 GMT';

export interface MetaOptions {
  size?: number;
  lastModified?: Date;
  contentType?: string;
  filename?: string;
  cacheControl?: string;
}

export interface RangeCase {
  readonly name: string;
  readonly method: 'GET' | 'HEAD' | 'POST';
  readonly request: Record<string, string>;
  readonly meta: MetaOptions;
  readonly status: number;
  /**
   * Exactly the headers of the answer. For multipart answers Content-Type and Content-Length
   * are left out here (the boundary is random) and checked by the tests; for 416 these are
   * the error mapping's extra headers (its JSON body adds Content-Type and Content-Length).
   */
  readonly headers: Record<string, string>;
  /** The body as representation byte ranges [start, end], in order; multipart when more than one. */
  readonly body: readonly (readonly [number, number])[];
}

export const BASE = { 'Accept-Ranges': 'bytes', ETag: ETAG, 'Last-Modified': LAST_MODIFIED_HTTP };
export const OCTETS = 'application/octet-stream';

export function whole(name: string, request: Record<string, string>, meta: MetaOptions = {}): RangeCase {
  return {
    name,
    method: 'GET',
    request,
    meta,
    status: 200,
    headers: { ...BASE, 'Content-Type': OCTETS, 'Content-Length': String(SIZE) },
    body: [[0, SIZE - 1]],
  };
}

export function single(name: string, request: Record<string, string>, start: number, end: number): RangeCase {
  return {
    name,
    method: 'GET',
    request,
    meta: {},
    status: 206,
    headers: {
      ...BASE,
      'Content-Type': OCTETS,
      'Content-Range': `bytes ${start}-${end}/${SIZE}`,
      'Content-Length': String(end - start + 1),
    },
    body: [[start, end]],
  };
}

export function multipart(name: string, range: string, body: [number, number][], meta: MetaOptions = {}): RangeCase {
  return { name, method: 'GET', request: { Range: range }, meta, status: 206, headers: { ...BASE }, body };
}

export function unsatisfiable(name: string, request: Record<string, string>, size = SIZE): RangeCase {
  return {
    name,
    method: 'GET',
    request,
    meta: { size },
    status: 416,
    headers: { 'Content-Range': `bytes */${size}` },
    body: [],
  };
}

export function notModified(name: string, request: Record<string, string>): RangeCase {
  return {
    name,
    method: 'GET',
    request,
    meta: { cacheControl: 'max-age=60', filename: 'x.iso' },
    status: 304,
    headers: { ETag: ETAG, 'Last-Modified': LAST_MODIFIED_HTTP, 'Cache-Control': 'max-age=60' },
    body: [],
  };
}

export function preconditionFailed(name: string, request: Record<string, string>): RangeCase {
  return { name, method: 'GET', request, meta: {}, status: 412, headers: { 'Content-Length': '0' }, body: [] };
}
