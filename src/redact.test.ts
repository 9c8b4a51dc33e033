import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { isCredentialName, redactText, redactUrl } from './redact.js';

const KEY = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('redactUrl', () => {
  it.each([
    [`/byapikey/${KEY}/4.17/x86_64/full.iso`, '/byapikey/[redacted]/4.17/x86_64/full.iso'],
    [`/BYAPIKEY/${KEY}/4.17/x86_64/full.iso`, '/BYAPIKEY/[redacted]/4.17/x86_64/full.iso'],
    [`/ByToken/${KEY}/4.17/x86_64/full.iso`, '/ByToken/[redacted]/4.17/x86_64/full.iso'],
    [`/%62yapikey/${KEY}/x`, '/%62yapikey/[redacted]/x'],
    [`//byapikey//${KEY}/x`, '//byapikey//[redacted]/x'],
    [`/images/x?api_key=${KEY}&type=full-iso`, '/images/x?api_key=[redacted]&type=full-iso'],
    [`/images/x?%61pi_key=${KEY}`, '/images/x?%61pi_key=[redacted]'],
    [`/images/x?api%5Fkey=${KEY}`, '/images/x?api%5Fkey=[redacted]'],
    [`/images/x?API_KEY=${KEY}`, '/images/x?API_KEY=[redacted]'],
    [`/images/x?api%255Fkey=${KEY}`, '/images/x?api%255Fkey=[redacted]'],
    [`/images/x?type=full-iso&Image_Token=${KEY}`, '/images/x?type=full-iso&Image_Token=[redacted]'],
    [
      `https://u:${KEY}@s3.example/b/k.iso?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=${KEY}&x=1`,
      'https://[redacted]@s3.example/b/k.iso?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&x=1',
    ],
    ['/images/x?type=full-iso&version=4.17', '/images/x?type=full-iso&version=4.17'],
  ])('%s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });
});

describe('isCredentialName', () => {
  it('matches names in any case and spelling and leaves others alone', () => {
    for (const name of [
      'api_key',
      'API-KEY',
      'Image-Token',
      'image_token',
      'Authorization',
      'pull_secret',
      'PullSecret',
      'X-Amz-Signature',
      'admin_token',
      'x-secret-key',
    ])
      expect(isCredentialName(name), name).toBe(true);
    for (const name of ['type', 'version', 'arch', 'path', 'image', 'status'])
      expect(isCredentialName(name), name).toBe(false);
  });
});

describe('redactText', () => {
  it('redacts URLs inside messages', () => {
    expect(redactText(`GET http://h/BYTOKEN/${KEY}/x failed; see /images/a?Api_Key=${KEY}`)).not.toContain(KEY);
    // a configuration error quoting a malformed URL (printed by the CLI)
    expect(
      redactText('ASSISTED_SERVICE_URL must be an absolute http(s) URL, not "http://svc:pw-1234@ho st"'),
    ).not.toContain('pw-1234');
  });
});

describe('createLogger', () => {
  it('keeps credentials out of fields, messages and errors in any spelling', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _e, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = createLogger('debug', sink);
    logger.info(
      { Pull_Secret: KEY, headers: { 'Image-Token': KEY, AUTHORIZATION: `Bearer ${KEY}` }, path: `/ByApiKey/${KEY}/x` },
      'fields',
    );
    logger.error(new Error(`upstream refused /images/x?%61pi_key=${KEY}`));
    logger.error({ err: new Error(`at https://user:${KEY}@host/x`) });
    logger.warn(`message with /bytoken/${KEY}/full.iso`);
    logger.child({ component: 'core' }).info({ nested: { deeper: { api_key: KEY } } }, 'child');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).not.toContain(KEY);
    expect(lines.join('')).toContain('[redacted]');
  });
});

describe('tokens outside the credential routes', () => {
  it('redacts a JWT in any path segment and in free text', () => {
    expect(redactUrl(`/nowhere/${KEY}/x`)).toBe('/nowhere/[redacted]/x');
    expect(redactText(`Bearer ${KEY} refused`)).toBe('Bearer [redacted] refused');
  });
});

describe('errors in log objects', () => {
  it('keep their class, code and the original untouched', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (l: string) => lines.push(l) });
    const original = Object.assign(new TypeError(`refused /BYTOKEN/${KEY}/x`), { code: 'EFOO' });
    logger.error({ err: original }, 'failed');
    const logged = JSON.parse(lines[0]!) as { err: { type: string; code: string; message: string } };
    expect(logged.err).toMatchObject({ type: 'TypeError', code: 'EFOO', message: 'refused /BYTOKEN/[redacted]/x' });
    expect(original.message).toContain(KEY);
  });
});
