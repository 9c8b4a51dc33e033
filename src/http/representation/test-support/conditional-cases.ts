// The conditional cases of the range layer's table: If-Range, If-None-Match /
// If-Modified-Since, If-Match / If-Unmodified-Since and their order (RFC 9110 §13.2.2).
// Test support only.
import {
  ETAG,
  LAST_MODIFIED_HTTP,
  notModified,
  preconditionFailed,
  single,
  whole,
  type RangeCase,
} from './case-builders.js';

export const CONDITIONAL_CASES: readonly RangeCase[] = [
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
