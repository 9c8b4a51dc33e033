// A BMC's JSON answer made safe to parse and to keep: its bounds checked on the text before it is
// parsed, and its strings made storable once it is.
//
//   scanJson(text, bounds)   one pass over the text, no allocation beyond a counter per open
//                            array: nesting deeper than `maxDepth`, an array of more than
//                            `maxArrayItems` items, a string of more than `maxStringChars`
//                            characters (an escape counts as one) is a breach naming its bound;
//                            says whether the text escapes a NUL or a surrogate
//   storable(value)          the parsed document with NUL and lone surrogates replaced by U+FFFD
//                            in every string and key: PostgreSQL refuses both in text and jsonb,
//                            so one such character in a BMC's Model failed every job of that BMC
//
// Does NOT: parse or validate JSON (JSON.parse does, after the scan said yes; the scan's counts of
// an invalid text mean nothing), or know what a document means (resources.ts). Next: transport.ts.

export interface JsonBounds {
  maxDepth: number;
  maxArrayItems: number;
  maxStringChars: number;
}

export interface JsonBreach {
  /** The limit's constant in limits.ts. */
  bound: 'MAX_JSON_DEPTH' | 'MAX_JSON_ARRAY_ITEMS' | 'MAX_JSON_STRING_CHARS';
  limit: number;
  /** What was found, in words (`a string of 3,900,000 characters`). */
  found: string;
}

export interface JsonScan {
  breach: JsonBreach | undefined;
  /** A `\u0000` or a `\uD800`–`\uDFFF` escape occurs: storable() has work to do. */
  unsafeEscapes: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const LOWER_U = 0x75;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function scanJson(text: string, bounds: JsonBounds): JsonScan {
  let unsafeEscapes = false;
  // Per open container: -1 for an object, else the items counted so far of an array.
  const items: number[] = [];
  // Inside an array, a value starts at the next non-space character (after `[` or `,`).
  let expectItem = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    const top = items.length - 1;
    if (expectItem && c !== CLOSE_ARRAY && (items[top] ?? -1) >= 0) {
      expectItem = false;
      const count = (items[top] as number) + 1;
      if (count > bounds.maxArrayItems)
        return {
          breach: {
            bound: 'MAX_JSON_ARRAY_ITEMS',
            limit: bounds.maxArrayItems,
            found: `an array of more than ${bounds.maxArrayItems.toLocaleString('en-US')} items`,
          },
          unsafeEscapes,
        };
      items[top] = count;
    }
    if (c === QUOTE) {
      let chars = 0;
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === QUOTE) break;
        if (d === BACKSLASH) {
          if (text.charCodeAt(j + 1) === LOWER_U) {
            const hex = text.slice(j + 2, j + 6).toLowerCase();
            if (hex === '0000' || (hex >= 'd800' && hex <= 'dfff')) unsafeEscapes = true;
            j += 5;
          } else {
            j += 1;
          }
        }
        chars++;
      }
      if (chars > bounds.maxStringChars)
        return {
          breach: {
            bound: 'MAX_JSON_STRING_CHARS',
            limit: bounds.maxStringChars,
            found: `a string of ${chars.toLocaleString('en-US')} characters`,
          },
          unsafeEscapes,
        };
      i = j;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (items.length >= bounds.maxDepth)
        return {
          breach: {
            bound: 'MAX_JSON_DEPTH',
            limit: bounds.maxDepth,
            found: `objects and arrays nested deeper than ${bounds.maxDepth} levels`,
          },
          unsafeEscapes,
        };
      items.push(c === OPEN_ARRAY ? 0 : -1);
      expectItem = c === OPEN_ARRAY;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      items.pop();
      expectItem = false;
    } else if (c === COMMA) {
      expectItem = (items[top] ?? -1) >= 0;
    }
  }
  return { breach: undefined, unsafeEscapes };
}

/** NUL, and a surrogate half without its other half. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with NUL and lone surrogates replaced by U+FFFD (what a UTF-8 decoder makes of bad bytes). */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** A parsed document with every string and key storable (a copy where anything changed). */
export function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storable);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[storableText(key)] = storable(v);
    return out;
  }
  return value;
}
