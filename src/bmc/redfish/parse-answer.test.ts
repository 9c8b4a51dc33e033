// parseAnswer as a table: a BMC's answer bytes and status in, what the transport settles from out
// (the document, whether the text parsed, the bound it broke).
import { describe, expect, it } from 'vitest';
import { MAX_JSON_STRING_CHARS } from './limits.js';
import { parseAnswer } from './parse-answer.js';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const long = 'x'.repeat(MAX_JSON_STRING_CHARS + 1);

describe('parseAnswer', () => {
  it.each([
    ['a document', 200, '{"Id": "1"}', { json: { Id: '1' }, parsed: true, breach: undefined }],
    ['no body (204)', 204, '', { json: undefined, parsed: true, breach: undefined }],
    ['not JSON', 200, '{"Id": ', { json: undefined, parsed: false, breach: undefined }],
    [
      'a NUL escaped, made storable',
      200,
      '{"Model": "R\\u0000"}',
      { json: { Model: 'R\uFFFD' }, parsed: true, breach: undefined },
    ],
  ])('%s', (_name, status, text, expected) => {
    expect(parseAnswer(status, bytes(text))).toEqual(expected);
  });

  it('a success answer past a bound is not parsed and names the bound', () => {
    const r = parseAnswer(200, bytes(`{"Image": "${long}"}`));
    expect(r.json).toBeUndefined();
    expect(r.breach?.bound).toBe('MAX_JSON_STRING_CHARS');
  });

  it('an error document is read with any string length (its message is cut later)', () => {
    const r = parseAnswer(400, bytes(`{"error": {"message": "${long}"}}`));
    expect(r.breach).toBeUndefined();
    expect((r.json as { error: { message: string } }).error.message).toHaveLength(long.length);
  });

  it('reads a view into a larger buffer by its own offset and length', () => {
    const whole = Buffer.from('xx{"Id": "2"}yy', 'utf8');
    expect(parseAnswer(200, new Uint8Array(whole.buffer, whole.byteOffset + 2, whole.length - 4)).json).toEqual({
      Id: '2',
    });
  });
});
