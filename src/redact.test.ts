import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import {
  cutMark,
  isCredentialName,
  MAX_REDACTED_LENGTH,
  REDACTED,
  redactJwts,
  redactText,
  redactUrl,
} from './redact.js';

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

describe('Redfish session tokens (issue 33)', () => {
  it('redacts the value after X-Auth-Token in any spelling, hex tokens included', () => {
    const token = '6c3f1a2b9d8e7f60a1b2c3d4e5f60718';
    for (const text of [
      `X-Auth-Token: ${token}`,
      `x-auth-token=${token}`,
      `X_AUTH_TOKEN : ${token}`,
      `{"X-Auth-Token":"${token}","Location":"/redfish/v1/SessionService/Sessions/7"}`,
      `headers xauthtoken='${token}' sent`,
    ]) {
      const out = redactText(text);
      expect(out).not.toContain(token);
      expect(out).toContain('[redacted]');
    }
    // The header name alone, or a session URI, stays readable.
    expect(redactText('no X-Auth-Token header in the answer')).toBe('no X-Auth-Token header in the answer');
    expect(redactText('DELETE /redfish/v1/SessionService/Sessions/7')).toBe(
      'DELETE /redfish/v1/SessionService/Sessions/7',
    );
  });

  it('log fields named X-Auth-Token in any spelling are credentials', () => {
    for (const name of ['X-Auth-Token', 'x_auth_token', 'XAUTHTOKEN', 'sessionToken'])
      expect(isCredentialName(name)).toBe(true);
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

describe('opaque tokens outside the credential routes (issue 23, finding 7)', () => {
  const SHORT = 'TycaGvcF3E98NtHLhw2u3Bq97P8cTebI'; // a short /bytoken/ token: 32 base64url characters
  it.each([
    [`/x/${SHORT}`, '/x/[redacted]'],
    [`/bytoken;x/${SHORT}/4.17/x86_64/full.iso`, '/bytoken;x/[redacted]/4.17/x86_64/full.iso'],
    [`/bytoken%2F${SHORT}/4.17`, '/bytoken%[redacted]/4.17'],
    [`/images/x?x=${SHORT}&type=full-iso`, '/images/x?x=[redacted]&type=full-iso'],
    [`/a/${SHORT};jsessionid=1`, '/a/[redacted];jsessionid=1'],
  ])('%s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
    expect(redactText(`refused ${input} twice`)).not.toContain(SHORT);
  });

  it('keeps UUIDs, hex digests, versions and words', () => {
    for (const kept of [
      '/byid/3f1d7c1e-7d0a-4f43-9d55-6f1c2f4e0a01/4.17/x86_64/full.iso',
      '/boot-artifacts/rootfs?arch=x86_64&version=417.94.202410090854-0',
      '/x?sha256=9d1c0ffee2b7a1e5c3f4d8a6b2e1c0d9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3',
      '/api/assisted-install/v2/infra-envs/3F1D7C1E-7D0A-4F43-9D55-6F1C2F4E0A01/downloads/files',
      '/quay.io/edge-infrastructure/assisted-installer-agent:latest',
    ])
      expect(redactUrl(kept), kept).toBe(kept);
    expect(redactText('ERR_WORKER_OUT_OF_MEMORY in assisted-installer-agent')).toBe(
      'ERR_WORKER_OUT_OF_MEMORY in assisted-installer-agent',
    );
  });

  it('keeps file paths in free text readable: mixed-case names shorter than a token are not tokens there', () => {
    const message = '/tmp/bootsmith-iso-cli-qzoAoO/work-0-embed-areas-2020-09.iso: no embedded Ignition config';
    expect(redactText(message)).toBe(message);
    // the same name as a request target is redacted: a client may hide a shorter token there
    expect(redactUrl('/x/bootsmith-iso-cli-qzoAoO')).toBe('/x/[redacted]');
    expect(redactText(`/tmp/${SHORT}/work.iso: no embedded Ignition config`)).toBe(
      '/tmp/[redacted]/work.iso: no embedded Ignition config',
    );
  });
});

describe('bounded, linear redaction (issue 37, finding 1)', () => {
  /** The pattern redactJwts replaces (it backtracked quadratically on many `eyJ` without dots). */
  const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{8,}/g;
  const pieces = [
    'eyJ',
    'eyJhbGciOi',
    '.',
    '..',
    'a',
    'Zz',
    '0',
    '-',
    '_',
    'abcdefgh',
    '/',
    '?',
    ' ',
    '%2E',
    'é',
    '😀',
  ];

  /** A run of 0–max base64url characters. */
  const run = (max: number) =>
    fc.array(fc.constantFrom('a', 'Z', '9', '-', '_'), { maxLength: max }).map((c) => c.join(''));
  /** Near-JWTs: every part around its minimum length, `eyJ` somewhere or not, joined by one or two dots. */
  const nearJwt = fc
    .tuple(run(3), fc.constantFrom('eyJ', 'eyj', ''), run(6), run(6), run(10), fc.constantFrom('.', '..', '/'))
    .map(([before, marker, first, second, third, dot]) => `${before}${marker}${first}${dot}${second}.${third}`);

  it('redactJwts finds exactly what the JWT pattern matches', () => {
    const same = (text: string): void => {
      expect(redactJwts(text), text).toBe(text.replace(JWT_PATTERN, REDACTED));
    };
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), nearJwt), { maxLength: 12 }), (parts) => {
        same(parts.join(''));
      }),
      { numRuns: 10_000, seed: 37 },
    );
    for (const text of [
      KEY,
      `a${KEY}b`,
      `x.${KEY}.${KEY}`,
      `eyJeyJeyJ.abcd.abcdefgh`,
      `eyJabc.abcd.abcdefgh`,
      'eyJ'.repeat(100),
    ])
      same(text);
  });

  it.each([
    ['eyJ without dots', `/x/${'eyJ'.repeat(30_000)}`, '/x/'],
    ['a long token', `/x/${'Ab1'.repeat(30_000)}`, '/x/'],
    ['many dots', `/x/${'eyJa.'.repeat(20_000)}`, '/x/'],
    ['a query value', `/images/x?type=full-iso&q=${'eyJ'.repeat(30_000)}`, '/images/x?type=full-iso&q='],
    ['unicode', `/x/${'é😀'.repeat(30_000)}`, undefined],
  ])('cuts input over MAX_REDACTED_LENGTH before scanning it and marks the cut: %s', (_name, input, kept) => {
    for (const redacted of [redactUrl(input), redactText(input), redactText(`no route for GET ${input}`)]) {
      const mark = /…\[(\d+) characters cut\]$/.exec(redacted);
      expect(mark, redacted.slice(0, 80)).not.toBeNull();
      expect(redacted.length - mark![0].length).toBeLessThanOrEqual(MAX_REDACTED_LENGTH);
      expect(redacted).toBe(redacted.slice(0, mark!.index) + cutMark(Number(mark![1])));
      expect(redacted).not.toMatch(/[\uD800-\uDBFF]…/); // never half a character
    }
    if (kept !== undefined) expect(redactUrl(input)).toBe(kept + cutMark(input.length - kept.length));
  });

  it('never leaves a piece of a token the cut splits', () => {
    const padding = `/x/${'a/'.repeat((MAX_REDACTED_LENGTH - 10) / 2)}`;
    const input = `${padding}${KEY}/tail`;
    expect(input.slice(0, MAX_REDACTED_LENGTH)).toContain('eyJ'); // the cut falls inside the key
    for (const redacted of [redactUrl(input), redactText(input)]) {
      expect(redacted.startsWith(padding)).toBe(true);
      expect(redacted.slice(padding.length)).toBe(cutMark(input.length - padding.length));
    }
  });

  it('keeps input up to the bound whole: a request target of Node’s largest head is not cut', () => {
    const target = `/byapikey/${KEY}/${'a/'.repeat((MAX_REDACTED_LENGTH - 100) / 2)}full.iso`;
    expect(target.length).toBeLessThanOrEqual(MAX_REDACTED_LENGTH);
    expect(redactUrl(target)).toBe(target.replace(KEY, REDACTED));
  });

  it('a log line of a hostile string is bounded too', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (l: string) => lines.push(l) });
    logger.info({ path: `/x/${'eyJ'.repeat(100_000)}` }, `refused ${'eyJ'.repeat(100_000)}`);
    expect(lines[0]!.length).toBeLessThan(3 * MAX_REDACTED_LENGTH);
    expect(lines[0]).toContain('characters cut]');
  });
});
