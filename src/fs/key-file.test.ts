// keyFromText as a table: the spellings of a 32-byte key a key file may hold, and what is not one.
import { describe, expect, it } from 'vitest';
import { KEY_BYTES, keyFromText } from './key-file.js';

const KEY = Buffer.from(Array.from({ length: KEY_BYTES }, (_v, i) => i * 7 + 250));

describe('keyFromText: table', () => {
  it.each<[string, string, Buffer | undefined]>([
    ['base64 with a newline (openssl rand -base64 32)', `${KEY.toString('base64')}\n`, KEY],
    ['base64url', KEY.toString('base64url'), KEY],
    ['hex, upper case, surrounded by blanks', `  ${KEY.toString('hex').toUpperCase()}  `, KEY],
    ['16 bytes', Buffer.alloc(16, 1).toString('base64'), undefined],
    ['33 bytes', Buffer.alloc(33, 1).toString('base64'), undefined],
    ['empty (an unfilled Kubernetes Secret)', '', undefined],
    ['text', 'not a key at all, it has spaces', undefined],
  ])('%s', (_name, text, key) => {
    expect(keyFromText(text)).toEqual(key);
  });
});
