// The two words every side shares about URL tokens (url-token-resolver.ts): which token is a JWT
// (exactly two dots) and the hash a short token is stored and reported by. The hash is pinned to
// a published SHA-256 vector: image_url_tokens rows and BMC job tokens written by an earlier
// release are found by it, so it may never change.
import { describe, expect, it } from 'vitest';
import { hashUrlToken, isJwtShaped } from './url-token-resolver.js';

describe('isJwtShaped', () => {
  it.each([
    ['eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', true],
    ['a.b.c', true],
    ['..', true],
    ['Secret0123456789_-Secret01234567', false],
    ['a.b', false],
    ['a.b.c.d', false],
    ['', false],
  ])('%j → %s', (token, jwt) => {
    expect(isJwtShaped(token)).toBe(jwt);
  });
});

describe('hashUrlToken', () => {
  it('is SHA-256 in base64url (FIPS 180-2 "abc")', () => {
    expect(hashUrlToken('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('names a token in 43 URL-safe characters that do not hold it', () => {
    expect(hashUrlToken('tok-en_1')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashUrlToken('tok-en_1')).not.toContain('tok-en_1');
  });
});
