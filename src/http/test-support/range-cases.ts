// Request/response cases for the range layer, shared by the pure planning tests
// (response-plan.test.ts) and the socket-level tests (serve-representation.test.ts), so that
// every case pinned down without sockets is also checked on the wire. Test support only.
import { MAX_RANGES } from '../range.js';

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

const BASE = { 'Accept-Ranges': 'bytes', ETag: ETAG, 'Last-Modified': LAST_MODIFIED_HTTP };
const OCTETS = 'application/octet-stream';

function whole(name: string, request: Record<string, string>, meta: MetaOptions = {}): RangeCase {
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

function single(name: string, request: Record<string, string>, start: number, end: number): RangeCase {
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

function multipart(name: string, range: string, body: [number, number][], meta: MetaOptions = {}): RangeCase {
  return { name, method: 'GET', request: { Range: range }, meta, status: 206, headers: { ...BASE }, body };
}

function unsatisfiable(name: string, request: Record<string, string>, size = SIZE): RangeCase {
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

function notModified(name: string, request: Record<string, string>): RangeCase {
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

function preconditionFailed(name: string, request: Record<string, string>): RangeCase {
  return { name, method: 'GET', request, meta: {}, status: 412, headers: { 'Content-Length': '0' }, body: [] };
}

const specs = (n: number): string => Array.from({ length: n }, (_, k) => `${k * 100}-${k * 100 + 9}`).join(',');
const capParts: [number, number][] = Array.from({ length: MAX_RANGES }, (_, k) => [k * 100, k * 100 + 9]);

export const RANGE_CASES: readonly RangeCase[] = [
  // full responses
  {
    name: 'the whole representation with every header',
    method: 'GET',
    request: {},
    meta: { filename: 'discovery.iso', cacheControl: 'no-store' },
    status: 200,
    headers: {
      ...BASE,
      'Cache-Control': 'no-store',
      'Content-Disposition': 'attachment; filename="discovery.iso"',
      'Content-Type': OCTETS,
      'Content-Length': String(SIZE),
    },
    body: [[0, SIZE - 1]],
  },
  {
    name: 'the representation content type and an awkward file name (HEAD)',
    method: 'HEAD',
    request: {},
    meta: { contentType: 'text/plain; charset=utf-8', filename: 'café "x".iso' },
    status: 200,
    headers: {
      ...BASE,
      'Content-Disposition': `attachment; filename="caf_ _x_.iso"; filename*=UTF-8''caf%C3%A9%20%22x%22.iso`,
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(SIZE),
    },
    body: [],
  },
  {
    name: 'an empty representation: 200, Content-Length 0, no body',
    method: 'GET',
    request: {},
    meta: { size: 0 },
    status: 200,
    headers: { ...BASE, 'Content-Type': OCTETS, 'Content-Length': '0' },
    body: [],
  },
  unsatisfiable('bytes=0- on an empty representation', { Range: 'bytes=0-' }, 0),
  unsatisfiable('bytes=-1 on an empty representation', { Range: 'bytes=-1' }, 0),
  unsatisfiable('bytes=0-0 on an empty representation', { Range: 'bytes=0-0' }, 0),
  {
    name: 'POST: 405',
    method: 'POST',
    request: {},
    meta: {},
    status: 405,
    headers: { Allow: 'GET, HEAD', 'Content-Length': '0' },
    body: [],
  },
  {
    name: 'a representation without a usable date: no Last-Modified, date conditionals ignored',
    method: 'GET',
    request: {
      'If-Modified-Since': 'Fri, 01 Jan 2100 00:00:00 GMT',
      'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT',
    },
    meta: { lastModified: new Date(Number.NaN) },
    status: 200,
    headers: { 'Accept-Ranges': 'bytes', ETag: ETAG, 'Content-Type': OCTETS, 'Content-Length': String(SIZE) },
    body: [[0, SIZE - 1]],
  },

  // single ranges
  single('bytes=0-99', { Range: 'bytes=0-99' }, 0, 99),
  single('bytes=1000-', { Range: 'bytes=1000-' }, 1000, SIZE - 1),
  single('bytes=-500', { Range: 'bytes=-500' }, SIZE - 500, SIZE - 1),
  single('bytes=150000-999999999', { Range: 'bytes=150000-999999999' }, 150_000, SIZE - 1),
  single('bytes=-999999999', { Range: 'bytes=-999999999' }, 0, SIZE - 1),
  single('bytes=0-', { Range: 'bytes=0-' }, 0, SIZE - 1),
  single('bytes=199999-199999', { Range: 'bytes=199999-199999' }, 199_999, 199_999),
  single('bytes=10-19,20-29,15-25 (merged)', { Range: 'bytes=10-19,20-29,15-25' }, 10, 29),
  single(
    `${MAX_RANGES} overlapping ranges never send more than the representation`,
    { Range: 'bytes=' + Array.from({ length: MAX_RANGES }, () => '0-').join(',') },
    0,
    SIZE - 1,
  ),
  single('unsatisfiable specs dropped when others are satisfiable', { Range: 'bytes=900000-,0-9,-0' }, 0, 9),

  // multipart
  multipart(
    'several ranges as multipart/byteranges',
    'bytes=0-9, 50000-70000,-100,  199000-199049',
    [
      [0, 9],
      [50_000, 70_000],
      [SIZE - 100, SIZE - 1],
      [199_000, 199_049],
    ],
    { contentType: 'application/x-iso9660-image' },
  ),
  multipart('overlapping ranges coalesced, request order kept', 'bytes=100000-100009,0-9,5-14,10-20', [
    [100_000, 100_009],
    [0, 20],
  ]),
  multipart(`${MAX_RANGES} ranges as parts`, `bytes=${specs(MAX_RANGES)}`, capParts),
  whole(`more than ${MAX_RANGES} ranges: Range ignored`, { Range: `bytes=${specs(MAX_RANGES + 1)}` }),

  // unsatisfiable and malformed
  unsatisfiable(`bytes=${SIZE}-`, { Range: `bytes=${SIZE}-` }),
  unsatisfiable('bytes=999999-9999999', { Range: 'bytes=999999-9999999' }),
  unsatisfiable('bytes=-0', { Range: 'bytes=-0' }),
  unsatisfiable(`bytes=${SIZE}-,-0`, { Range: `bytes=${SIZE}-,-0` }),
  ...['bytes=abc', 'bytes=5-1', 'bytes=0-1;2', 'bytes 0-1', 'bytes=', 'items=0-9', 'bytes=0-1, bytes=4-5'].map(
    (range) => whole(`malformed or foreign Range ${JSON.stringify(range)} ignored`, { Range: range }),
  ),

  // If-Range
  single('If-Range with the matching strong ETag', { Range: 'bytes=10-19', 'If-Range': ETAG }, 10, 19),
  whole('If-Range with another ETag', { Range: 'bytes=10-19', 'If-Range': '"v0-old"' }),
  whole('If-Range with the weak form of the ETag', { Range: 'bytes=10-19', 'If-Range': 'W/"v1-abc"' }),
  single(
    'If-Range with the exact Last-Modified date',
    { Range: 'bytes=10-19', 'If-Range': LAST_MODIFIED_HTTP },
    10,
    19,
  ),
  whole('If-Range with a later date', { Range: 'bytes=10-19', 'If-Range': 'Fri, 17 May 2024 10:20:31 GMT' }),
  whole('If-Range with an earlier date', { Range: 'bytes=10-19', 'If-Range': 'Fri, 17 May 2024 10:20:29 GMT' }),
  whole('If-Range with garbage', { Range: 'bytes=10-19', 'If-Range': 'not a validator' }),
  whole('an unsatisfiable Range ignored when If-Range does not match', {
    Range: 'bytes=999999-',
    'If-Range': '"v0-old"',
  }),
  whole('If-Range without a Range', { 'If-Range': '"v0-old"' }),

  // If-None-Match / If-Modified-Since
  notModified('If-None-Match with the exact ETag', { 'If-None-Match': ETAG, Range: 'bytes=0-9' }),
  notModified('If-None-Match *', { 'If-None-Match': '*', Range: 'bytes=0-9' }),
  notModified('If-None-Match with a list containing the ETag', {
    'If-None-Match': '"zzz", "v1-abc" , "yyy"',
    Range: 'bytes=0-9',
  }),
  notModified('If-None-Match with the weak form (weak comparison)', {
    'If-None-Match': 'W/"v1-abc"',
    Range: 'bytes=0-9',
  }),
  whole('If-None-Match without a match: If-Modified-Since not consulted', {
    'If-None-Match': '"other", W/"v2"',
    'If-Modified-Since': 'Fri, 01 Jan 2100 00:00:00 GMT',
  }),
  {
    ...notModified('If-Modified-Since the Last-Modified second', { 'If-Modified-Since': LAST_MODIFIED_HTTP }),
    meta: {},
    headers: { ETag: ETAG, 'Last-Modified': LAST_MODIFIED_HTTP },
  },
  {
    ...notModified('If-Modified-Since a later date', { 'If-Modified-Since': 'Sat, 18 May 2024 00:00:00 GMT' }),
    meta: {},
    headers: { ETag: ETAG, 'Last-Modified': LAST_MODIFIED_HTTP },
  },
  whole('If-Modified-Since an earlier second', { 'If-Modified-Since': 'Fri, 17 May 2024 10:20:29 GMT' }),
  whole('If-Modified-Since garbage', { 'If-Modified-Since': 'not a date' }),

  // If-Match / If-Unmodified-Since
  preconditionFailed('If-Match with another ETag', { 'If-Match': '"other"' }),
  preconditionFailed('If-Match with the weak form (strong comparison)', { 'If-Match': 'W/"v1-abc"' }),
  preconditionFailed('If-Match with garbage', { 'If-Match': 'v1-abc' }),
  whole('If-Match with the ETag', { 'If-Match': ETAG }),
  whole('If-Match with a list containing the ETag', { 'If-Match': '"a", "v1-abc"' }),
  whole('If-Match *', { 'If-Match': '*' }),
  preconditionFailed('If-Unmodified-Since an earlier second', {
    'If-Unmodified-Since': 'Fri, 17 May 2024 10:20:29 GMT',
  }),
  whole('If-Unmodified-Since the Last-Modified second', { 'If-Unmodified-Since': LAST_MODIFIED_HTTP }),
  whole('If-Unmodified-Since a later second', { 'If-Unmodified-Since': 'Fri, 17 May 2024 10:20:31 GMT' }),
  whole('If-Unmodified-Since garbage', { 'If-Unmodified-Since': 'garbage' }),

  // evaluation order (RFC 9110 §13.2.2)
  preconditionFailed('If-Match before If-None-Match', { 'If-Match': '"other"', 'If-None-Match': ETAG }),
  {
    ...notModified('If-None-Match after a matching If-Match', { 'If-Match': ETAG, 'If-None-Match': ETAG }),
    meta: {},
    headers: { ETag: ETAG, 'Last-Modified': LAST_MODIFIED_HTTP },
  },
  whole('If-Unmodified-Since only without If-Match', {
    'If-Match': ETAG,
    'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT',
  }),
  preconditionFailed('a failed precondition wins over an unsatisfiable Range', {
    'If-Match': '"other"',
    Range: 'bytes=999999-',
  }),
];

/** Request header sets for which HEAD must answer exactly the GET's status and headers. */
export const HEAD_CASES: readonly [string, Record<string, string>][] = [
  ['no conditions', {}],
  ['a single range', { Range: 'bytes=5-500' }],
  ['a suffix range', { Range: 'bytes=-77' }],
  ['several ranges', { Range: 'bytes=0-1,10-20,-5' }],
  ['an unsatisfiable range', { Range: 'bytes=999999-' }],
  ['a malformed range', { Range: 'bytes=oops' }],
  ['a stale If-Range', { Range: 'bytes=0-9', 'If-Range': '"old"' }],
  ['If-None-Match', { 'If-None-Match': ETAG }],
  ['If-Match failing', { 'If-Match': '"nope"' }],
];
