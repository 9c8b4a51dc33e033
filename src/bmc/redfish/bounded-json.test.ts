// scanJson as a table: each row a BMC answer's text and what the scan says of it (the bound it
// breaks, or none, and whether it escapes a NUL or a surrogate); storable() on parsed documents.
import { describe, expect, it } from 'vitest';
import { type JsonBounds, scanJson, storable, storableText } from './bounded-json.js';

const BOUNDS: JsonBounds = { maxDepth: 4, maxArrayItems: 3, maxStringChars: 10 };
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

const CASES: [string, string, JsonBreach['bound'] | undefined, string | undefined, boolean][] = [
  ['a small document', '{"Id": "1", "Members": [{"@odata.id": "/a"}]}', undefined, undefined, false],
  ['nesting at the limit', deep(4), undefined, undefined, false],
  ['nesting past it', deep(5), 'MAX_JSON_DEPTH', 'objects and arrays nested deeper than 4 levels', false],
  ['objects count as levels', '{"a":{"b":{"c":{"d":{}}}}}', 'MAX_JSON_DEPTH', undefined, false],
  ['brackets inside strings are text', '{"a": "[[[[[[[[{{{{"}', 'MAX_JSON_STRING_CHARS', undefined, false],
  ['an array at the limit', '[1, "two", {"x": [1, 2, 3]}]', undefined, undefined, false],
  ['an array past it', '[1, 2, 3, 4]', 'MAX_JSON_ARRAY_ITEMS', 'an array of more than 3 items', false],
  ['nested items count in their own array', '[[1, 2, 3], [4, 5, 6], [7, 8, 9]]', undefined, undefined, false],
  ['empty arrays count nothing', '{"a": [], "b": [[], [], []], "c": {}}', undefined, undefined, false],
  ['commas of an object are not items', '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}', undefined, undefined, false],
  ['a string at the limit', '"1234567890"', undefined, undefined, false],
  ['a string past it, counted whole', '"123456789abc"', 'MAX_JSON_STRING_CHARS', 'a string of 12 characters', false],
  ['an escape counts as one character', '"\\u00e9\\u00e9\\u00e9\\u00e9\\n\\n\\"\\\\ab"', undefined, undefined, false],
  ['an escaped quote does not end the string', '"ab\\"cdefghijk"', 'MAX_JSON_STRING_CHARS', undefined, false],
  ['a key is a string too', '{"12345678901": 1}', 'MAX_JSON_STRING_CHARS', undefined, false],
  ['a NUL escape', '{"Model": "R\\u0000"}', undefined, undefined, true],
  ['a surrogate escape', '{"Model": "\\uD800"}', undefined, undefined, true],
  ['a lower-case surrogate escape', '["\\udfff"]', undefined, undefined, true],
  ['other escapes are fine', '["\\u00e9\\u0041"]', undefined, undefined, false],
]; // prettier-ignore
type JsonBreach = NonNullable<ReturnType<typeof scanJson>['breach']>;

describe('scanJson: table', () => {
  it.each(CASES)('%s', (_name, text, bound, found, unsafe) => {
    const scan = scanJson(text, BOUNDS);
    expect(scan.breach?.bound).toBe(bound);
    if (found !== undefined) expect(scan.breach?.found).toBe(found);
    if (bound === undefined) {
      expect(() => JSON.parse(text) as unknown).not.toThrow();
      expect(scan.unsafeEscapes).toBe(unsafe);
    }
  });

  it('stops at the first breach of a 4 MB string without building it', () => {
    const text = `{"Image": "${'x'.repeat(4_000_000)}"}`;
    expect(scanJson(text, { maxDepth: 32, maxArrayItems: 1024, maxStringChars: 4096 }).breach).toEqual({
      bound: 'MAX_JSON_STRING_CHARS',
      limit: 4096,
      found: 'a string of 4,000,000 characters',
    });
  });

  it('600,000 boot targets break the array bound; a million levels the depth bound', () => {
    const bounds = { maxDepth: 32, maxArrayItems: 1024, maxStringChars: 4096 };
    const targets = JSON.stringify({
      Boot: { 'BootSourceOverrideTarget@Redfish.AllowableValues': Array(600_000).fill('Pxe') },
    });
    expect(scanJson(targets, bounds).breach?.bound).toBe('MAX_JSON_ARRAY_ITEMS');
    expect(scanJson(deep(1_000_000), bounds).breach?.bound).toBe('MAX_JSON_DEPTH');
  });
});

describe('storable', () => {
  it('replaces NUL and lone surrogates in strings and keys, keeps pairs and everything else', () => {
    const doc = JSON.parse('{"Model": "R\\u0000x", "\\ud800k": ["\\udc00", "\\ud83d\\ude00", 7, null, true]}') as unknown;
    expect(storable(doc)).toEqual({ Model: 'R\uFFFDx', '\uFFFDk': ['\uFFFD', '\u{1F600}', 7, null, true] });
    expect(storableText('a\uD800\uDC00b\uDBFF')).toBe('a\u{10000}b\uFFFD');
    // what PostgreSQL would refuse is gone: JSON text without \u0000 and without lone surrogate escapes
    expect(JSON.stringify(storable(doc))).not.toMatch(/\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|\\ud[c-f][0-9a-f]{2}/i);
  });
}); // prettier-ignore
