// The Content-Disposition value for a download: `attachment; filename="…"`.
//
// Does: quote a plain printable-ASCII name as-is; for any other name, an ASCII fallback
// (unsafe characters replaced by `_`) plus an RFC 8187 `filename*` carrying the exact UTF-8
// bytes percent-encoded. Pure string work.
// Does NOT: validate or shorten names, strip path separators (callers choose the names), or
// produce `inline` dispositions.

/**
 * `attachment; filename="…"`, plus an RFC 8187 `filename*` (with an ASCII fallback) when the
 * name holds characters a quoted-string cannot carry safely.
 */
export function contentDisposition(filename: string): string {
  let plain = true;
  for (let i = 0; i < filename.length; i++) {
    if (!isPlainChar(filename.charCodeAt(i))) {
      plain = false;
      break;
    }
  }
  if (plain) return `attachment; filename="${filename}"`;

  let fallback = '';
  for (let i = 0; i < filename.length; i++) {
    fallback += isPlainChar(filename.charCodeAt(i)) ? filename[i] : '_';
  }
  let encoded = '';
  for (const byte of Buffer.from(filename, 'utf8')) {
    encoded += isAttrChar(byte)
      ? String.fromCharCode(byte)
      : `%${byte < 16 ? '0' : ''}${byte.toString(16).toUpperCase()}`;
  }
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Printable ASCII other than `"` and `\`: safe inside a quoted-string without escapes. */
function isPlainChar(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c;
}

/** RFC 8187 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" */
function isAttrChar(b: number): boolean {
  return (
    (b >= 0x30 && b <= 0x39) ||
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    b === 0x21 ||
    b === 0x23 ||
    b === 0x24 ||
    b === 0x26 ||
    b === 0x2b ||
    b === 0x2d ||
    b === 0x2e ||
    b === 0x5e ||
    b === 0x5f ||
    b === 0x60 ||
    b === 0x7c ||
    b === 0x7e
  );
}
