// Control-character rules for text that reaches files, boot scripts, logs or the database.
//
// Two kinds of text: `line` (names, kernel arguments, URLs, hostnames, agent versions: no
// control character at all) and `multiline` (PEM bundles, ssh key lists, Ignition JSON,
// agent step output: tab, LF and CR allowed, nothing else). Everywhere: no C0 control other
// than those, no DEL, no C1 control (U+0080–U+009F), no unpaired UTF-16 surrogate (not text,
// and PostgreSQL cannot store NUL at all). Does not check formats (URL, hostname, …): the
// callers do that after this.
import { BadRequestError } from '../../errors.js';

export type TextKind = 'line' | 'multiline';

/** JSON bodies nest no deeper than this; far beyond any legitimate request (inventory: ~5). */
export const MAX_JSON_DEPTH = 32;

const FORBIDDEN = {
  line: /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
  multiline:
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
} as const;

function describe(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first forbidden character of `value` and its offset, or undefined when clean. */
export function findControlCharacter(
  value: string,
  kind: TextKind = 'line',
): { char: string; offset: number } | undefined {
  const m = FORBIDDEN[kind].exec(value);
  return m ? { char: describe(m[0]), offset: m.index } : undefined;
}

/** Throws a 400 naming `field` (never echoing the value) when `value` holds a forbidden character. */
export function assertCleanText(field: string, value: string, kind: TextKind = 'line'): string {
  const bad = findControlCharacter(value, kind);
  if (bad) {
    throw new BadRequestError(`${field} must not contain control characters (${bad.char} at offset ${bad.offset})`, {
      field,
    });
  }
  return value;
}

/**
 * Walks a parsed JSON value (object keys and string values) to `MAX_JSON_DEPTH`, applying the
 * `multiline` rule to every string; deeper nesting is refused. `field` names the root in errors.
 */
export function assertCleanJson(field: string, value: unknown, depth = 0): void {
  if (typeof value === 'string') {
    assertCleanText(field, value, 'multiline');
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth >= MAX_JSON_DEPTH)
    throw new BadRequestError(`${field} is nested deeper than ${MAX_JSON_DEPTH} levels`, { field });
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertCleanJson(`${field}[${i}]`, v, depth + 1));
    return;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const printable = k.slice(0, 40).replace(/[^\x20-\x7e]/g, '?');
    assertCleanText(`${field} key ${JSON.stringify(printable)}`, k, 'line');
    assertCleanJson(`${field}.${printable}`, v, depth + 1);
  }
}
