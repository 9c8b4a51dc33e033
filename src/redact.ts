// Removes credentials from what bootsmith logs: request targets, URLs, free text and log
// objects. It redacts the way the router reads a request, not the way it was spelled: path
// segments and query names are percent-decoded and compared case-insensitively, so
// `/BYAPIKEY/<key>/…`, `?%61pi_key=` and `?api%5Fkey=` lose their values like the plain spellings.
//
// What counts as a credential:
//   - the path segment after a `byapikey` or `bytoken` segment (path-style ISO URLs: every URL
//     shape of src/url-grammar.ts with a credential parameter; urlRedactor() takes another table);
//   - query parameters named like a credential (api_key, image_token, token, signature,
//     X-Amz-Signature/Credential/Security-Token, password, secret, key, …) or containing such a word;
//   - anything shaped like a JWT (how API keys and tokens look), wherever it appears;
//   - anything shaped like an opaque token (a run of base64url characters with both upper- and
//     lower-case letters, as the short `/bytoken/` tokens are: 32 random characters): in request
//     targets and URLs from 20 characters on, in any path segment or query value (a client may put
//     a token where no route expects one: `/x/<token>`, `/bytoken;x/<token>`, `/bytoken%2F<token>`,
//     and the debug access line logs every path); in free text (error messages, file paths) from
//     32 characters on, so that names such as `/tmp/bootsmith-iso-cli-qzoAoO` stay readable.
//     UUIDs and hex digests (one case) are kept;
//   - userinfo in absolute URLs (`https://user:pass@host/`);
//   - log fields named like a credential (pull_secret, Authorization, Image-Token, …) at any depth;
//   - in free text, the value after a session-token header name (`X-Auth-Token: …`, `x_auth_token=…`,
//     `"X-Auth-Token":"…"`, any case): Redfish session tokens are often plain hex (iDRAC), which
//     the token-run rule keeps, so the name is what gives them away.
//
// Every entry point reads at most MAX_REDACTED_LENGTH characters: longer input is cut before it is
// scanned (the word the cut would split is dropped with the rest, so no part of a token is left)
// and the answer ends with a mark saying how much was cut. The scan is linear in what it reads:
// runs of characters are found by single-class patterns and a hand-written scanner (JWT shapes),
// never by a pattern whose quantifiers can backtrack over each other (issue 37: a JWT regex took
// seconds on 90 KB of `eyJ` in any client's request path, holding the event loop).
//
// It does not decide what is logged, and it is a second line of defence: code must not put
// secrets into log calls in the first place. It never throws on malformed input.

import { type UrlShape, credentialRouteSegments } from './url-grammar.js';

export const REDACTED = '[redacted]';

/** Route segments followed by a credential in the path (matched decoded, case-insensitively). */
const CREDENTIAL_ROUTES: ReadonlySet<string> = credentialRouteSegments();

/** Normalized names (lower case, `-`/`_`/`.` removed) that always carry a credential. */
const CREDENTIAL_NAMES = new Set([
  'apikey',
  'imagetoken',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'pullsecret',
  'ignition',
  'password',
  'passwd',
  'secret',
  'key',
  'sig',
  'signature',
  'credential',
  'xsecretkey',
  'xamzsignature',
  'xamzcredential',
  'xamzsecuritytoken',
  'awsaccesskeyid',
  'secretaccesskey',
  'sessiontoken',
  'privatekey',
]);

/**
 * Longest input one redaction reads, in UTF-16 code units. A request target is at most Node's
 * header limit (16 KiB for the whole request head, `--max-http-header-size`), so no target a
 * client can send by default is cut; error messages and stacks are far shorter. Longer input is
 * cut before it is scanned (see cutForRedaction).
 */
export const MAX_REDACTED_LENGTH = 16_384;

/** Ends a cut redaction: how many characters of the input were not read. */
export function cutMark(cut: number): string {
  return `…[${cut} characters cut]`;
}

/** A base64url character (the alphabet of JWT parts and opaque tokens). */
function isBase64url(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f;
}

/**
 * `text` cut to MAX_REDACTED_LENGTH, and the mark to append to its redaction ('' when whole). The
 * cut also drops the word it falls in (base64url characters, dots and percent escapes), so no
 * piece of a token it splits is left for the redaction to miss.
 */
function cutForRedaction(text: string): { head: string; mark: string } {
  if (text.length <= MAX_REDACTED_LENGTH) return { head: text, mark: '' };
  let end = MAX_REDACTED_LENGTH;
  while (end > 0 && isWordOfToken(text.charCodeAt(end - 1))) end--;
  return { head: text.slice(0, end), mark: cutMark(text.length - end) };
}

/** Characters of a word a cut must not split: base64url, `.`, `%`, and a high surrogate (half a character). */
function isWordOfToken(c: number): boolean {
  return isBase64url(c) || c === 0x2e || c === 0x25 || (c >= 0xd800 && c <= 0xdbff);
}

/** End (exclusive) of the run of base64url characters starting at `i`. */
function base64urlRunEnd(text: string, i: number): number {
  let end = i;
  while (end < text.length && isBase64url(text.charCodeAt(end))) end++;
  return end;
}

/** Where the first `eyJ` in the run [from, end) starts that has 4+ characters after it, or -1. */
function firstJwtStart(text: string, from: number, end: number): number {
  for (let k = from; k + 7 <= end; k++) if (text.startsWith('eyJ', k)) return k;
  return -1;
}

/**
 * Every JWT-shaped stretch (our API keys, image tokens, admin tokens), wherever it appears,
 * replaced by `[redacted]`: `eyJ` and at least 4 more base64url characters, a dot, at least 4, a
 * dot, at least 8 — what `/eyJ[B]{4,}\.[B]{4,}\.[B]{8,}/g` (B: base64url) matches, found in one
 * pass. A run of base64url characters is a JWT's first part when a dot, a run of 4+, a dot and a
 * run of 8+ follow it and it holds `eyJ` with 4+ characters after it; the match starts at the
 * first such `eyJ` and takes the whole third run. Each character is looked at a bounded number of
 * times (as part of a first, second or third run), so the work is linear in the text.
 */
export function redactJwts(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (!isBase64url(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const end1 = base64urlRunEnd(text, i);
    const end2 = text.charCodeAt(end1) === 0x2e ? base64urlRunEnd(text, end1 + 1) : end1;
    const end3 = end2 - end1 > 4 && text.charCodeAt(end2) === 0x2e ? base64urlRunEnd(text, end2 + 1) : end2;
    const start = end3 - end2 > 8 ? firstJwtStart(text, i, end1) : -1;
    if (start >= 0) {
      out += text.slice(copied, start) + REDACTED;
      copied = i = end3;
    } else {
      i = end1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Shortest run that may be a token in a request target or URL, and in free text (see the header). */
const TARGET_TOKEN_RUN = 20;
const TEXT_TOKEN_RUN = 32;
/** A run of base64url characters; its length and isTokenShaped decide. */
const BASE64URL_RUN = /[A-Za-z0-9_-]+/g;

/** An opaque token's shape: mixed case (random base64url), not a UUID. */
function isTokenShaped(run: string): boolean {
  return /[a-z]/.test(run) && /[A-Z]/.test(run) && !/^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/.test(run);
}

function redactTokenRuns(text: string, minRun: number): string {
  return text.replace(BASE64URL_RUN, (run) => (run.length >= minRun && isTokenShaped(run) ? REDACTED : run));
}

/** Words that make any normalized name a credential name (e.g. `admin_token`, `client-secret`). */
const CREDENTIAL_WORDS = [
  'token',
  'secret',
  'password',
  'apikey',
  'signature',
  'credential',
  'authorization',
  'privatekey',
];

/** Log objects are walked at most this deep and this wide: logging must stay cheap and bounded. */
const MAX_DEPTH = 8;
const MAX_ARRAY_ITEMS = 200;

/** Percent-decoding is repeated this often, so a doubly encoded name is still recognized. */
const MAX_DECODE_ROUNDS = 3;

/** True when a field, header or query name carries a credential, in any case or spelling. */
export function isCredentialName(name: string): boolean {
  const normalized = decodeRepeatedly(name)
    .toLowerCase()
    .replace(/[-_.\s[\]]/g, '');
  if (CREDENTIAL_NAMES.has(normalized)) return true;
  return CREDENTIAL_WORDS.some((word) => normalized.includes(word));
}

/**
 * A request target or URL (`/byapikey/<key>/4.17/x86_64/full.iso?x=1`, `https://u:p@host/a?X-Amz-Signature=…`)
 * with every credential replaced by `[redacted]`. Everything else is kept as it was spelled.
 */
export function redactUrl(target: string, minTokenRun = TARGET_TOKEN_RUN): string {
  return redactUrlWith(target, CREDENTIAL_ROUTES, minTokenRun);
}

/** redactUrl for the URL shapes of `shapes` instead of src/url-grammar.ts's table. */
export function urlRedactor(shapes: readonly UrlShape[]): (target: string) => string {
  const routes = credentialRouteSegments(shapes);
  return (target) => redactUrlWith(target, routes, TARGET_TOKEN_RUN);
}

function redactUrlWith(target: string, credentialRoutes: ReadonlySet<string>, minTokenRun: number): string {
  const { head, mark } = cutForRedaction(target);
  return redactWholeUrl(head, credentialRoutes, minTokenRun) + mark;
}

function redactWholeUrl(target: string, credentialRoutes: ReadonlySet<string>, minTokenRun: number): string {
  let text = target;
  let prefix = '';
  const scheme = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(text);
  if (scheme) {
    const authority = scheme[2]!;
    const at = authority.lastIndexOf('@');
    prefix = scheme[1]! + (at >= 0 ? `${REDACTED}@${authority.slice(at + 1)}` : authority);
    text = text.slice(scheme[0].length);
  }
  const hash = text.indexOf('#');
  const fragment = hash >= 0 ? text.slice(hash) : '';
  if (hash >= 0) text = text.slice(0, hash);
  const question = text.indexOf('?');
  let path = question >= 0 ? text.slice(0, question) : text;
  let query = question >= 0 ? text.slice(question + 1) : undefined;
  // A bare `api_key=…&x=y` (no path) is a query string.
  if (query === undefined && !prefix && !path.includes('/') && path.includes('=')) {
    query = path;
    path = '';
    return redactQuery(query, minTokenRun) + fragment;
  }
  return (
    prefix +
    redactPath(path, credentialRoutes, minTokenRun) +
    (query === undefined ? '' : `?${redactQuery(query, minTokenRun)}`) +
    fragment
  );
}

/** The request's target as the router sees it (express `originalUrl`, else node's `url`), redacted. */
export function redactedRequestTarget(req: { originalUrl?: string; url?: string }): string {
  return redactUrl(req.originalUrl ?? req.url ?? '');
}

/**
 * `X-Auth-Token` in any spelling (`x_auth_token`, `X-AUTH-TOKEN`, `xauthtoken`), then `:` or `=`
 * with optional quotes and spaces, then the value: one pass, no nested quantifiers.
 */
const SESSION_TOKEN_HEADER = /(x[-_ ]?auth[-_ ]?token["']?[ \t]*[:=][ \t]*["']?)[^\s"',;}]+/gi;

/** Free text (error messages, stacks) with every URL-like word in it redacted. */
export function redactText(text: string): string {
  const { head, mark } = cutForRedaction(text);
  const urlsRedacted = redactJwts(head.replace(SESSION_TOKEN_HEADER, `$1${REDACTED}`)).replace(
    /[^\s"'<>`()[\]{},]+/g,
    (word) => (/[/?=@]/.test(word) ? redactWholeUrl(word, CREDENTIAL_ROUTES, TEXT_TOKEN_RUN) : word),
  );
  return redactTokenRuns(urlsRedacted, TEXT_TOKEN_RUN) + mark;
}

/**
 * A copy of a log object with credential-named fields replaced and every string redacted as
 * text. Errors become copies of the same class with redacted message, stack, cause and fields;
 * the originals are never modified.
 */
export function redactLogValue(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return '[too deep]';
  seen.add(value);
  if (value instanceof Error) {
    // A copy of the same class (so its type still shows), with redacted text and fields.
    const copy = Object.create(Object.getPrototypeOf(value) as object) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value))
      copy[key] = isCredentialName(key) ? REDACTED : redactLogValue(item, depth + 1, seen);
    const hidden = (v: unknown) => ({ value: v, enumerable: false, writable: true, configurable: true });
    Object.defineProperty(copy, 'message', hidden(redactText(value.message)));
    if (value.stack) Object.defineProperty(copy, 'stack', hidden(redactText(value.stack)));
    if (value.cause !== undefined)
      Object.defineProperty(copy, 'cause', hidden(redactLogValue(value.cause, depth + 1, seen)));
    return copy;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.slice(0, MAX_ARRAY_ITEMS).map((item) => redactLogValue(item, depth + 1, seen));
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      isCredentialName(key) && item !== undefined && item !== null && item !== ''
        ? REDACTED
        : redactLogValue(item, depth + 1, seen);
  }
  return out;
}

function redactPath(path: string, credentialRoutes: ReadonlySet<string>, minTokenRun: number): string {
  const segments = path.split('/');
  let afterRoute = false;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (afterRoute && segment !== '') {
      segments[i] = REDACTED;
      afterRoute = false;
    } else if (credentialRoutes.has(decodeRepeatedly(segment).toLowerCase())) {
      afterRoute = true;
    } else {
      segments[i] = redactTokenRuns(redactJwts(segment), minTokenRun);
    }
  }
  return segments.join('/');
}

function redactQuery(query: string, minTokenRun: number): string {
  return query
    .split(/([&;])/)
    .map((part) => {
      if (part === '&' || part === ';') return part;
      const eq = part.indexOf('=');
      const name = eq >= 0 ? part.slice(0, eq) : part;
      if (!isCredentialName(name.replace(/\+/g, ' '))) return redactTokenRuns(redactJwts(part), minTokenRun);
      return eq >= 0 ? `${name}=${REDACTED}` : part;
    })
    .join('');
}

function decodeRepeatedly(text: string): string {
  let current = text;
  for (let round = 0; round < MAX_DECODE_ROUNDS && current.includes('%'); round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      // Node's querystring decodes what it can and keeps malformed escapes: do the same.
      next = current.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === current) break;
    current = next;
  }
  return current;
}
