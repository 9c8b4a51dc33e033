// The `Range` request header (RFC 9110 §14.1.1, §14.2) → the byte ranges to send, coalesced
// and capped.
//
// Does: parseRange(), coalesceRanges(), rangesLength(). Synchronous and allocation-light
// (character scanning, no regular expressions, no substrings on the common paths) because it
// runs for every request of a BMC's virtual-media range storm.
// Does NOT: I/O, conditionals (entity-tag.ts, http-date.ts, preconditions.ts), or responses:
// which status to send is decided by src/http/representation/response-plan.ts.
import { COMMA, DASH, ZERO, isDigit, isOws, skipOws } from './header-chars.js';

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
  const lengthDiff = aTo - aFrom - (bTo - bFrom);
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
