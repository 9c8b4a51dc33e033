// RFC 2397 `data:` URLs as Ignition reads them (its dataurl parser): so that a `data:` source
// Ignition would refuse at boot is refused at creation with a 400 instead.
//
// Does: check the grammar Ignition accepts, measured against Debian's `ignition-validate` 2.14:
//  - the prefix is exactly `data:` (lower case);
//  - an optional media type `type/subtype` of token characters, whose type starts with one of
//    text, image, audio, video, application, message, multipart or is an `x-` token;
//  - parameters `;attr=value` (value a token or a quoted string) and, last, `;base64`;
//  - base64 data: only `A-Z a-z 0-9 + / =`, decoded strictly (length a multiple of 4, `=` only
//    as the final one or two characters);
//  - other data: printable ASCII except space and `< > # " { } | \ ^ [ ] \``, with every `%`
//    starting a two-digit hex escape.
// Checks (`dataUrlProblem`: regular expressions only, nothing allocated, for the validator) or
// decodes (`decodeDataUrl`, for readers and tests).
// Does not: know where the URL is used (validate.ts) or limit its size (override-limits.ts).

/** Media types Ignition's parser accepts (a prefix match, as it does), besides `x-` tokens. */
const MEDIA_TYPE_PREFIXES = ['text', 'image', 'audio', 'video', 'application', 'message', 'multipart'];
/** RFC 2045 tspecials: not allowed in a token. */
const TSPECIALS = new Set([...'()<>@,;:\\"/[]?=']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type DataUrlResult = { ok: true; data: Buffer; mediaType: string } | { ok: false; reason: string };

function isTokenChar(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return c > 0x20 && c < 0x7f && !TSPECIALS.has(ch);
}

function isToken(s: string): boolean {
  if (s === '') return false;
  for (const ch of s) if (!isTokenChar(ch)) return false;
  return true;
}

function isQuotedString(s: string): boolean {
  if (s.length < 2 || !s.startsWith('"') || !s.endsWith('"')) return false;
  for (let i = 1; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return false;
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return false;
  }
  return true;
}

/** The header (between `data:` and the first comma outside a quoted string). */
function splitHeader(url: string): { header: string; data: string } | undefined {
  let quoted = false;
  for (let i = 5; i < url.length; i++) {
    const ch = url[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') return { header: url.slice(5, i), data: url.slice(i + 1) };
  }
  return undefined;
}

function checkHeader(header: string): { base64: boolean; mediaType: string } | string {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    if (quoted) {
      if (header[i] === '\\') i++;
      else if (header[i] === '"') quoted = false;
    } else if (header[i] === '"') quoted = true;
    else if (header[i] === ';') {
      parts.push(header.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(header.slice(start));
  const [mediaType, ...params] = parts as [string, ...string[]];
  if (mediaType !== '') {
    const slash = mediaType.indexOf('/');
    if (slash < 0) return 'has a media type without a slash';
    const type = mediaType.slice(0, slash);
    const subtype = mediaType.slice(slash + 1);
    if (!isToken(type) || !isToken(subtype)) return 'has an invalid media type';
    const known = MEDIA_TYPE_PREFIXES.some((p) => type.startsWith(p)) || /^[xX]-/.test(type);
    if (!known) return `has an unknown media type ${JSON.stringify(type.slice(0, 32))}`;
  }
  let base64 = false;
  for (const [i, p] of params.entries()) {
    const eq = p.indexOf('=');
    if (eq < 0) {
      if (p !== 'base64' || i !== params.length - 1) return 'has a parameter without a value (only a final ;base64)';
      base64 = true;
      continue;
    }
    const attr = p.slice(0, eq);
    const value = p.slice(eq + 1);
    if (!isToken(attr)) return 'has an invalid parameter name';
    if (!isToken(value) && !isQuotedString(value)) return 'has an invalid parameter value';
  }
  return { base64, mediaType: mediaType || 'text/plain' };
}

/** Any character Ignition's parser refuses in non-base64 data: controls, space, non-ASCII, `"#<>[\\]^\`{|}`. */
const INVALID_DATA_CHAR = /[^\x21\x24-\x3b\x3d\x3f-\x5a\x5f\x61-\x7a\x7e]/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

function dataProblem(data: string): string | undefined {
  const bad = INVALID_DATA_CHAR.exec(data);
  if (bad) return `has an invalid data character at offset ${bad.index}`;
  const escape = BAD_ESCAPE.exec(data);
  if (escape) return `has a malformed %-escape at offset ${escape.index}`;
  return undefined;
}

/**
 * Why Ignition would refuse this `data:` URL, or undefined when it decodes. Checks with
 * regular expressions and allocates nothing, so validating a megabyte of data stays cheap.
 */
export function dataUrlProblem(url: string): string | undefined {
  return parse(url).problem;
}

function parse(url: string): { problem?: string; base64?: boolean; data?: string; mediaType?: string } {
  if (!url.startsWith('data:')) return { problem: 'does not start with "data:"' };
  const split = splitHeader(url);
  if (!split) return { problem: 'has no comma before its data' };
  const header = checkHeader(split.header);
  if (typeof header === 'string') return { problem: header };
  if (header.base64) {
    const d = split.data;
    if (d.length % 4 !== 0 || !BASE64.test(d)) return { problem: 'has invalid base64 data' };
  } else {
    const problem = dataProblem(split.data);
    if (problem) return { problem };
  }
  return { base64: header.base64, data: split.data, mediaType: header.mediaType };
}

/** Parses and decodes a `data:` URL with Ignition's rules; the reason never echoes the payload. */
export function decodeDataUrl(url: string): DataUrlResult {
  const p = parse(url);
  if (p.problem !== undefined) return { ok: false, reason: p.problem };
  const data = p.data!;
  const bytes = p.base64 ? Buffer.from(data, 'base64') : Buffer.from(decodeURIComponentBytes(data));
  return { ok: true, data: bytes, mediaType: p.mediaType! };
}

/** Percent-decoding to bytes (the data may be any bytes, not only UTF-8). */
function decodeURIComponentBytes(data: string): Uint8Array {
  const out = new Uint8Array(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    if (data.charCodeAt(i) === 0x25 /* % */) {
      out[n++] = parseInt(data.slice(i + 1, i + 3), 16);
      i += 2;
    } else out[n++] = data.charCodeAt(i);
  }
  return out.subarray(0, n);
}
