// Request/response cases for the range layer, shared by the pure planning tests
// (response-plan.test.ts) and the socket-level tests (serve-representation.test.ts), so that
// every case pinned down without sockets is also checked on the wire. Test support only.
import { MAX_RANGES } from '../range.js';
import { BASE, ETAG, OCTETS, SIZE, multipart, single, unsatisfiable, whole, type RangeCase } from './case-builders.js';
import { CONDITIONAL_CASES } from './conditional-cases.js';

export { ETAG, LAST_MODIFIED, LAST_MODIFIED_HTTP, SIZE, type MetaOptions, type RangeCase } from './case-builders.js';

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

  ...CONDITIONAL_CASES,
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
