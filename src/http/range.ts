// Pure parsers for the request headers of range and conditional requests (RFC 9110 §13, §14).
//
// - parseRange():      `Range: bytes=…` → the byte ranges to send, coalesced and capped.
// - matchEntityTag():  `If-Match` / `If-None-Match` lists against the representation's ETag.
// - ifRangeMatches():  the `If-Range` validator (strong ETag or exact date).
// - parseHttpDate():   the three HTTP-date formats, strictly.
//
// Everything here is synchronous and allocation-light (character scanning, no regular
// expressions, no substrings on the common paths) because it runs for every request of a
// BMC's virtual-media range storm. This module does no I/O and knows nothing about
// responses: which status to send, and in which order the conditionals are evaluated, is
// decided by src/http/serve-representation.ts.

/** An inclusive byte range, 0 <= start <= end < size. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * The outcome of evaluating a `Range` header against a representation of `size` bytes.
 *
 * - `ignore`: act as if there were no Range header and send the whole representation (200).
 *   `absent`: no header; `unit`: a range unit other than `bytes`; `syntax`: the header does
 *   not follow the grammar (RFC 9110 lets a server ignore it); `too-many`: more than
 *   `maxRanges` range-specs (what nginx `max_ranges` and Apache `MaxRanges` do).
 * - `unsatisfiable`: a valid `bytes` header none of whose ranges overlaps the representation (416).
 * - `ranges`: one or more satisfiable ranges, clipped to the representation, overlapping and
 *   adjacent ones merged (206; multipart when more than one).
 */
export type RangeResult =
  | { readonly kind: 'ignore'; readonly reason: 'absent' | 'unit' | 'syntax' | 'too-many' }
  | { readonly kind: 'unsatisfiable' }
  | { readonly kind: 'ranges'; readonly ranges: readonly ByteRange[] };

/** Range-specs accepted in one header; more and the header is ignored (full 200 response). */
export const MAX_RANGES = 64;

const IGNORE_ABSENT: RangeResult = Object.freeze({ kind: 'ignore', reason: 'absent' });
const IGNORE_UNIT: RangeResult = Object.freeze({ kind: 'ignore', reason: 'unit' });
const IGNORE_SYNTAX: RangeResult = Object.freeze({ kind: 'ignore', reason: 'syntax' });
const IGNORE_TOO_MANY: RangeResult = Object.freeze({ kind: 'ignore', reason: 'too-many' });
const UNSATISFIABLE: RangeResult = Object.freeze({ kind: 'unsatisfiable' });

const SP = 0x20;
const HTAB = 0x09;
const COMMA = 0x2c;
const DASH = 0x2d;
const DQUOTE = 0x22;
const ZERO = 0x30;
const NINE = 0x39;

function isOws(c: number): boolean {
  return c === SP || c === HTAB;
}

function skipOws(s: string, i: number): number {
  while (i < s.length && isOws(s.charCodeAt(i))) i++;
  return i;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

/** Index of the first non-digit at or after `i`. */
function skipDigits(s: string, i: number): number {
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  return i;
}

/**
 * The value of the digits s[from, to). Values beyond 2^53 lose precision, which is harmless:
 * every representation is far smaller, so such positions only ever compare as "too large"
 * (the one place where two of them are compared with each other uses compareDigits()).
 */
function digitsValue(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (s.charCodeAt(i) - ZERO);
  return n;
}

/** Exact numeric comparison of two digit runs of `s`, for values beyond 2^53. */
function compareDigits(s: string, aFrom: number, aTo: number, bFrom: number, bTo: number): number {
  while (aFrom < aTo - 1 && s.charCodeAt(aFrom) === ZERO) aFrom++;
  while (bFrom < bTo - 1 && s.charCodeAt(bFrom) === ZERO) bFrom++;
  const lengthDiff = (aTo - aFrom) - (bTo - bFrom);
  if (lengthDiff !== 0) return lengthDiff;
  for (; aFrom < aTo; aFrom++, bFrom++) {
    const d = s.charCodeAt(aFrom) - s.charCodeAt(bFrom);
    if (d !== 0) return d;
  }
  return 0;
}

/** Case-insensitive test that s[from, to) is the range unit `bytes`. */
function isBytesUnit(s: string, from: number, to: number): boolean {
  if (to - from !== 5) return false;
  // ASCII letters only differ in bit 0x20 between cases; `| 0x20` lowercases them.
  return (
    (s.charCodeAt(from) | 0x20) === 0x62 && // b
    (s.charCodeAt(from + 1) | 0x20) === 0x79 && // y
    (s.charCodeAt(from + 2) | 0x20) === 0x74 && // t
    (s.charCodeAt(from + 3) | 0x20) === 0x65 && // e
    (s.charCodeAt(from + 4) | 0x20) === 0x73 // s
  );
}

/**
 * Evaluates a `Range` header (RFC 9110 §14.1.1, §14.2) for a representation of `size` bytes.
 *
 * Accepted: `bytes=a-b`, `bytes=a-`, `bytes=-n` and comma-separated lists of them; the unit is
 * case-insensitive; blanks (SP/HTAB) are tolerated around `=`, `,` and `-`; empty list
 * elements are skipped (RFC 9110 §5.6.1). Each range's end is clipped to size - 1, a suffix
 * longer than the representation selects all of it.
 *
 * Unsatisfiable specs (first-pos >= size, suffix length 0, anything on an empty
 * representation) are dropped; if none remains the result is `unsatisfiable`. Overlapping
 * and adjacent ranges are merged (§14.6 allows it; it also bounds the response to at most
 * `size` payload bytes whatever the header asks, the defence against CVE-2011-3192 style
 * amplification). The merged ranges keep the order in which they were first requested.
 *
 * More than `maxRanges` specs → `ignore` (`too-many`): the whole representation is sent
 * with 200, as nginx (`max_ranges`) and Apache httpd (`MaxRanges`) do; parsing stops at the
 * first spec beyond the cap.
 */
export function parseRange(header: string | undefined, size: number, maxRanges: number = MAX_RANGES): RangeResult {
  if (header === undefined) return IGNORE_ABSENT;
  const len = header.length;
  const eq = header.indexOf('=');
  if (eq < 0) return IGNORE_SYNTAX;
  let unitEnd = eq;
  while (unitEnd > 0 && isOws(header.charCodeAt(unitEnd - 1))) unitEnd--;
  if (!isBytesUnit(header, skipOws(header, 0), unitEnd)) return IGNORE_UNIT;

  let ranges: ByteRange[] | undefined;
  let specs = 0;
  let i = eq + 1;
  for (;;) {
    i = skipOws(header, i);
    if (i >= len) break;
    if (header.charCodeAt(i) === COMMA) {
      i++;
      continue;
    }

    let start: number;
    let end: number;
    let satisfiable: boolean;
    if (header.charCodeAt(i) === DASH) {
      // suffix-range: "-" suffix-length
      const from = skipOws(header, i + 1);
      const to = skipDigits(header, from);
      if (to === from) return IGNORE_SYNTAX;
      i = to;
      const suffix = digitsValue(header, from, to);
      satisfiable = suffix > 0 && size > 0;
      start = suffix >= size ? 0 : size - suffix;
      end = size - 1;
    } else {
      // int-range: first-pos "-" [ last-pos ]
      const firstFrom = i;
      const firstTo = skipDigits(header, firstFrom);
      if (firstTo === firstFrom) return IGNORE_SYNTAX;
      i = skipOws(header, firstTo);
      if (i >= len || header.charCodeAt(i) !== DASH) return IGNORE_SYNTAX;
      const lastFrom = skipOws(header, i + 1);
      const lastTo = skipDigits(header, lastFrom);
      i = lastTo;
      start = digitsValue(header, firstFrom, firstTo);
      if (lastTo === lastFrom) {
        end = size - 1;
      } else {
        const last = digitsValue(header, lastFrom, lastTo);
        const lastBeforeFirst =
          start > Number.MAX_SAFE_INTEGER && last > Number.MAX_SAFE_INTEGER
            ? compareDigits(header, lastFrom, lastTo, firstFrom, firstTo) < 0
            : last < start;
        // RFC 9110 §14.1.1: a range-spec whose last-pos is below its first-pos is invalid.
        if (lastBeforeFirst) return IGNORE_SYNTAX;
        end = last < size ? last : size - 1;
      }
      satisfiable = start < size;
    }

    i = skipOws(header, i);
    if (i < len && header.charCodeAt(i) !== COMMA) return IGNORE_SYNTAX;

    if (++specs > maxRanges) return IGNORE_TOO_MANY;
    if (satisfiable) (ranges ??= []).push({ start, end });
  }

  if (specs === 0) return IGNORE_SYNTAX;
  if (ranges === undefined) return UNSATISFIABLE;
  return { kind: 'ranges', ranges: coalesceRanges(ranges) };
}

/**
 * Merges overlapping and adjacent ranges. Each merged range takes the position of the
 * earliest-requested range it absorbed; untouched ranges keep their request order
 * (RFC 9110 §14.6: parts SHOULD follow the order of the request). Ranges must be valid
 * (start <= end). Returns `ranges` itself when nothing needs merging.
 */
export function coalesceRanges(ranges: readonly ByteRange[]): readonly ByteRange[] {
  const n = ranges.length;
  if (n < 2) return ranges;

  // Fast path: ascending and pairwise separated by at least one byte → nothing to merge.
  let ordered = true;
  for (let k = 1; k < n; k++) {
    const prev = ranges[k - 1] as ByteRange;
    if ((ranges[k] as ByteRange).start <= prev.end + 1) {
      ordered = false;
      break;
    }
  }
  if (ordered) return ranges;

  const byStart: number[] = [];
  for (let k = 0; k < n; k++) byStart.push(k);
  byStart.sort((a, b) => (ranges[a] as ByteRange).start - (ranges[b] as ByteRange).start);

  const merged: { start: number; end: number; order: number }[] = [];
  for (const k of byStart) {
    const r = ranges[k] as ByteRange;
    const last = merged[merged.length - 1];
    if (last !== undefined && r.start <= last.end + 1) {
      if (r.end > last.end) last.end = r.end;
      if (k < last.order) last.order = k;
    } else {
      merged.push({ start: r.start, end: r.end, order: k });
    }
  }
  merged.sort((a, b) => a.order - b.order);
  return merged.map(({ start, end }) => ({ start, end }));
}

/** Total number of bytes selected by `ranges`. */
export function rangesLength(ranges: readonly ByteRange[]): number {
  let total = 0;
  for (const r of ranges) total += r.end - r.start + 1;
  return total;
}

/**
 * Whether an `If-Match` / `If-None-Match` field value matches `etag` (the representation's
 * entity tag, quotes included, possibly `W/`-prefixed).
 *
 * `*` matches any existing representation. Otherwise the value is a comma-separated list of
 * entity tags; `strong` comparison (If-Match, RFC 9110 §8.8.3.2) requires both tags to be
 * strong and their opaque parts equal, `weak` comparison (If-None-Match) ignores `W/`.
 * A malformed list matches nothing from the first malformed member on.
 */
export function matchEntityTag(fieldValue: string, etag: string, comparison: 'strong' | 'weak'): boolean {
  const len = fieldValue.length;
  let i = skipOws(fieldValue, 0);
  if (i < len && fieldValue.charCodeAt(i) === 0x2a /* * */ && skipOws(fieldValue, i + 1) === len) return true;

  const repWeak = etag.startsWith('W/');
  if (comparison === 'strong' && repWeak) return false;
  const opaque = repWeak ? etag.slice(2) : etag;

  for (;;) {
    i = skipOws(fieldValue, i);
    if (i >= len) return false;
    if (fieldValue.charCodeAt(i) === COMMA) {
      i++;
      continue;
    }
    let weak = false;
    if (fieldValue.charCodeAt(i) === 0x57 /* W */ && fieldValue.charCodeAt(i + 1) === 0x2f /* / */) {
      weak = true;
      i += 2;
    }
    if (fieldValue.charCodeAt(i) !== DQUOTE) return false;
    const close = fieldValue.indexOf('"', i + 1);
    if (close < 0) return false;
    if (
      close + 1 - i === opaque.length &&
      fieldValue.startsWith(opaque, i) &&
      (comparison === 'weak' || !weak)
    ) {
      return true;
    }
    i = skipOws(fieldValue, close + 1);
    if (i < len && fieldValue.charCodeAt(i) !== COMMA) return false;
  }
}

/**
 * Evaluates an `If-Range` field value (RFC 9110 §13.1.5). An entity tag matches only by
 * strong comparison (a `W/` tag never matches); an HTTP-date matches only when it equals
 * the Last-Modified second exactly. Anything else does not match. `lastModifiedSeconds` is
 * undefined when the representation has no usable modification date.
 */
export function ifRangeMatches(fieldValue: string, etag: string, lastModifiedSeconds: number | undefined): boolean {
  const from = skipOws(fieldValue, 0);
  const c = fieldValue.charCodeAt(from);
  if (c === 0x57 /* W */ && fieldValue.charCodeAt(from + 1) === 0x2f /* / */) return false;
  if (c === DQUOTE) {
    return !etag.startsWith('W/') && trimEnd(fieldValue) - from === etag.length && fieldValue.startsWith(etag, from);
  }
  if (lastModifiedSeconds === undefined) return false;
  const date = parseHttpDate(fieldValue);
  return date !== undefined && date / 1000 === lastModifiedSeconds;
}

/** Index just past the last non-blank character of `s`. */
function trimEnd(s: string): number {
  let end = s.length;
  while (end > 0 && isOws(s.charCodeAt(end - 1))) end--;
  return end;
}

// --- HTTP-date (RFC 9110 §5.6.7) -------------------------------------------------------

const MONTHS: readonly string[] = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const SHORT_DAYS: readonly string[] = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LONG_DAYS: readonly string[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const DAYS_IN_MONTH: readonly number[] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Two ASCII digits at s[i] as a number, or -1. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - ZERO;
  const b = s.charCodeAt(i + 1) - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** Index in `names` of the name found at s[at], or -1. */
function nameAt(s: string, at: number, names: readonly string[]): number {
  for (let k = 0; k < names.length; k++) {
    if (s.startsWith(names[k] as string, at)) return k;
  }
  return -1;
}

/** `HH:MM:SS` at s[i] as seconds of the day, or -1. */
function timeAt(s: string, i: number): number {
  if (s.charCodeAt(i + 2) !== 0x3a || s.charCodeAt(i + 5) !== 0x3a) return -1;
  const h = twoDigits(s, i);
  const m = twoDigits(s, i + 3);
  const sec = twoDigits(s, i + 6);
  if (h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60) return -1;
  return h * 3600 + m * 60 + sec;
}

/** Milliseconds since the epoch, or undefined for a day that does not exist (Feb 30). */
function utc(year: number, month: number, day: number, seconds: number): number | undefined {
  if (year < 1000) return undefined; // also keeps Date.UTC from reading 0-99 as 19xx
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 1 && leap ? 29 : (DAYS_IN_MONTH[month] as number);
  if (day < 1 || day > days) return undefined;
  return Date.UTC(year, month, day) + seconds * 1000;
}

/**
 * Parses an HTTP-date: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
 * form (`Sunday, 06-Nov-94 08:49:37 GMT`, two-digit years read per RFC 9110 §5.6.7) and
 * asctime (`Sun Nov  6 08:49:37 1994`, taken as UTC). Case-sensitive, as the grammar says;
 * surrounding blanks are allowed; the day name is not checked against the date. Returns
 * milliseconds since the epoch (a whole second), or undefined for anything else — unlike
 * Date.parse(), which accepts free text and reads asctime as local time.
 */
export function parseHttpDate(value: string): number | undefined {
  const from = skipOws(value, 0);
  const to = trimEnd(value);
  const s = from === 0 && to === value.length ? value : value.slice(from, to);
  const n = s.length;

  if (n === 29 && s.charCodeAt(3) === COMMA) {
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    if (nameAt(s, 0, SHORT_DAYS) < 0 || s.charCodeAt(4) !== SP || s.charCodeAt(7) !== SP) return undefined;
    if (s.charCodeAt(11) !== SP || s.charCodeAt(16) !== SP || s.charCodeAt(25) !== SP || !s.endsWith('GMT')) return undefined;
    const day = twoDigits(s, 5);
    const month = nameAt(s, 8, MONTHS);
    const hi = twoDigits(s, 12);
    const lo = twoDigits(s, 14);
    const time = timeAt(s, 17);
    if (day < 0 || month < 0 || hi < 0 || lo < 0 || time < 0) return undefined;
    return utc(hi * 100 + lo, month, day, time);
  }

  if (n === 24 && s.charCodeAt(3) === SP) {
    // asctime: "Sun Nov  6 08:49:37 1994" (day as two digits or SP + one digit)
    if (nameAt(s, 0, SHORT_DAYS) < 0 || s.charCodeAt(7) !== SP || s.charCodeAt(10) !== SP || s.charCodeAt(19) !== SP) {
      return undefined;
    }
    const month = nameAt(s, 4, MONTHS);
    const d2 = s.charCodeAt(9);
    const day = s.charCodeAt(8) !== SP ? twoDigits(s, 8) : isDigit(d2) ? d2 - ZERO : -1;
    const time = timeAt(s, 11);
    const hi = twoDigits(s, 20);
    const lo = twoDigits(s, 22);
    if (month < 0 || day < 0 || time < 0 || hi < 0 || lo < 0) return undefined;
    return utc(hi * 100 + lo, month, day, time);
  }

  const comma = s.indexOf(',');
  if (comma >= 6 && n === comma + 24) {
    // rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT"
    const dayName = nameAt(s, 0, LONG_DAYS);
    if (dayName < 0 || (LONG_DAYS[dayName] as string).length !== comma) return undefined;
    const p = comma + 2;
    if (s.charCodeAt(p - 1) !== SP || s.charCodeAt(p + 2) !== DASH || s.charCodeAt(p + 6) !== DASH) return undefined;
    if (s.charCodeAt(p + 9) !== SP || s.charCodeAt(p + 18) !== SP || !s.endsWith('GMT')) return undefined;
    const day = twoDigits(s, p);
    const month = nameAt(s, p + 3, MONTHS);
    const yy = twoDigits(s, p + 7);
    const time = timeAt(s, p + 10);
    if (day < 0 || month < 0 || yy < 0 || time < 0) return undefined;
    // A two-digit year more than 50 years in the future means the most recent past one.
    const thisYear = new Date().getUTCFullYear();
    let year = thisYear - (thisYear % 100) + yy;
    if (year > thisYear + 50) year -= 100;
    return utc(year, month, day, time);
  }

  return undefined;
}
