// Entity-tag conditionals (RFC 9110 §8.8.3, §13.1.1, §13.1.2, §13.1.5): `If-Match` /
// `If-None-Match` lists and the `If-Range` validator against a representation's ETag.
//
// Does: strong and weak comparison by character scanning, no allocation on the common paths.
// Does NOT: decide the order of the conditionals or any status (src/http/representation/preconditions.ts).
import { COMMA, DQUOTE, skipOws, trimEnd } from './header-chars.js';
import { parseHttpDate } from './http-date.js';

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
    if (close + 1 - i === opaque.length && fieldValue.startsWith(opaque, i) && (comparison === 'weak' || !weak)) {
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
