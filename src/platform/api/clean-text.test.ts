// The control-character rules of ./clean-text.ts, character by character.
import { describe, expect, it } from 'vitest';
import { assertCleanJson, assertCleanText, findControlCharacter, MAX_JSON_DEPTH } from './clean-text.js';

describe('control characters', () => {
  it('refuses every C0, DEL and C1 character on one line, and allows tab/LF/CR only in multi-line text', () => {
    for (let c = 0; c <= 0xa0; c++) {
      const s = `ab${String.fromCharCode(c)}cd`;
      const control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
      expect(findControlCharacter(s, 'line')?.offset, `U+${c.toString(16)}`).toBe(control ? 2 : undefined);
      const multiOk = !control || c === 0x09 || c === 0x0a || c === 0x0d;
      expect(findControlCharacter(s, 'multiline') === undefined, `U+${c.toString(16)} multiline`).toBe(multiOk);
    }
  });

  it('refuses unpaired surrogates but not pairs or other Unicode', () => {
    expect(findControlCharacter('a\ud800b')?.char).toBe('U+D800');
    expect(findControlCharacter('a\udc00')?.char).toBe('U+DC00');
    expect(findControlCharacter('\udc00\ud800')?.offset).toBe(0);
    expect(findControlCharacter('emoji 😀 é ü ß 漢字 \u2028')).toBeUndefined();
  });

  it('names the field and never echoes the value', () => {
    expect(() => assertCleanText('name', 'secret\u0000value')).toThrow(
      /^name must not contain control characters \(U\+0000 at offset 6\)$/,
    );
  });

  it('walks JSON keys and values to a bounded depth', () => {
    expect(() => assertCleanJson('body', { a: [{ b: 'x\u0001' }] })).toThrow(/^body\.a\[0\]\.b must not contain/);
    expect(() => assertCleanJson('body', { ['k\u0000']: 1 })).toThrow(/^body key "k\?" must not contain/);
    expect(() => assertCleanJson('body', { a: 'line\nline', n: 1, z: null })).not.toThrow();
    let deep: unknown = 'x';
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = [deep];
    expect(() => assertCleanJson('body', deep)).toThrow(/nested deeper than 32/);
    let ok: unknown = 'x';
    for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) ok = [ok];
    expect(() => assertCleanJson('body', ok)).not.toThrow();
  });
});
