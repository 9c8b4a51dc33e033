// Character-level helpers shared by the header parsers of the range layer (range.ts,
// entity-tag.ts, http-date.ts): code points and blank/digit scanning.
//
// Does: index arithmetic over strings, without allocating. Does NOT: parse any header itself.

export const SP = 0x20;
export const HTAB = 0x09;
export const COMMA = 0x2c;
export const DASH = 0x2d;
export const DQUOTE = 0x22;
export const ZERO = 0x30;
export const NINE = 0x39;

/** Optional whitespace (RFC 9110 §5.6.3): SP or HTAB. */
export function isOws(c: number): boolean {
  return c === SP || c === HTAB;
}

/** Index of the first non-blank character at or after `i`. */
export function skipOws(s: string, i: number): number {
  while (i < s.length && isOws(s.charCodeAt(i))) i++;
  return i;
}

/** Index just past the last non-blank character of `s`. */
export function trimEnd(s: string): number {
  let end = s.length;
  while (end > 0 && isOws(s.charCodeAt(end - 1))) end--;
  return end;
}

export function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}
