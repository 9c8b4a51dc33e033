// Auth file lookup as a table (containers-image's order: repository, namespace, registry, then
// normalized URL-style keys), challenge parsing, and errors that never quote a credential.
import { describe, expect, it } from 'vitest';
import { findCredentials, parseAuthFile } from './registry-auth-file.js';
import { parseChallenges } from './www-authenticate.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const file = parseAuthFile(
  JSON.stringify({
    auths: {
      'quay.io': { auth: b64('host:1') },
      'quay.io/openshift-release-dev': { auth: b64('namespace:2') },
      'quay.io/openshift-release-dev/ocp-release': { auth: b64('repo:3') },
      'mirror.example:5000': { auth: b64('port:4') },
      'https://legacy.example/v1/': { auth: b64('legacy:5') },
      'https://index.docker.io/v1/': { auth: b64('hub:6') },
      'fields.example': { username: 'fields', password: '7' },
      'token-only.example': { identitytoken: 'x' },
    },
    credHelpers: { 'ignored.example': 'secretservice' },
  }),
  'pull secret',
);

describe('findCredentials', () => {
  it.each([
    ['quay.io', 'openshift-release-dev/ocp-release', 'repo'],
    ['quay.io', 'openshift-release-dev/ocp-v4.0-art-dev', 'namespace'],
    ['quay.io', 'other/thing', 'host'],
    ['mirror.example:5000', 'ocp4/release', 'port'],
    ['mirror.example', 'ocp4/release', undefined],
    ['mirror.example:5001', 'ocp4/release', undefined],
    ['legacy.example', 'a/b', 'legacy'],
    ['docker.io', 'library/busybox', 'hub'],
    ['fields.example', 'a', 'fields'],
    ['token-only.example', 'a', undefined],
    ['ignored.example', 'a', undefined],
    ['QUAY.IO', 'x', 'host'], // host names compare case-insensitively
  ])('%s/%s → %s', (registry, repository, user) => {
    expect(findCredentials([file], registry, repository)?.username).toBe(user);
  });

  it('searches files in order (REGISTRY_AUTH_FILE before the pull secret)', () => {
    const first = parseAuthFile(
      JSON.stringify({ auths: { 'quay.io': { auth: b64('first:x') } } }),
      'REGISTRY_AUTH_FILE',
    );
    expect(findCredentials([first, file], 'quay.io', 'openshift-release-dev/ocp-release')?.username).toBe('first');
    expect(findCredentials([first, file], 'mirror.example:5000', 'a')?.username).toBe('port');
  });

  it('splits user and password at the first colon', () => {
    const f = parseAuthFile(JSON.stringify({ auths: { 'a.example': { auth: b64('u:p:a:s:s') } } }), 'f');
    expect(findCredentials([f], 'a.example', 'x')).toEqual({ username: 'u', password: 'p:a:s:s' });
  });

  it('drops NUL padding around the password, not inside it', () => {
    const inner = `p${'\0'.repeat(50_000)}w`; // read once (issue 37: /\0+$/ backtracked over inner NULs)
    const f = parseAuthFile(JSON.stringify({ auths: { 'a.example': { auth: b64(`u:\0\0${inner}\0`) } } }), 'f');
    expect(findCredentials([f], 'a.example', 'x')).toEqual({ username: 'u', password: inner });
  });
});

describe('parseAuthFile', () => {
  it.each([
    ['{', /REGISTRY_AUTH_FILE: not valid JSON/],
    ['[]', /expected a JSON object with "auths"/],
    ['{"auths": []}', /"auths" must be an object keyed by registry/],
    ['{"auths": {"a.example": "x"}}', /the entry for "a.example" must be an object/],
    ['{"auths": {"a.example": {"auth": "not base64!"}}}', /the entry for "a.example" has an "auth" that is not base64/],
    [`{"auths": {"a.example": {"auth": "${b64('nocolon')}"}}}`, /does not decode to user:password/],
  ])('refuses %s', (text, reason) => {
    expect(() => parseAuthFile(text, 'REGISTRY_AUTH_FILE')).toThrow(reason);
  });

  it('never quotes the file content in an error', () => {
    const secret = 'c2VjcmV0LXB1bGwtc2VjcmV0';
    try {
      parseAuthFile(`{"auths": {"a.example": {"auth": "${secret}!"}}, "x": ${'['.repeat(1)}`, 'f');
    } catch (err) {
      expect((err as Error).message).not.toContain(secret);
    }
    try {
      parseAuthFile(`{"auths": {"a.example": {"auth": "${secret}!"}}}`, 'f');
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).not.toContain(secret);
    }
  });
});

describe('parseChallenges', () => {
  it.each([
    [
      'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"',
      [
        {
          scheme: 'bearer',
          params: { realm: 'https://auth.example/token', service: 'registry.example', scope: 'repository:a/b:pull' },
        },
      ],
    ],
    ['Basic realm="Registry Realm"', [{ scheme: 'basic', params: { realm: 'Registry Realm' } }]],
    ['bearer Realm="https://x/t", Service=s', [{ scheme: 'bearer', params: { realm: 'https://x/t', service: 's' } }]],
    [
      'Basic realm="a, b", Bearer realm="https://t/\\"q\\"",error="insufficient_scope"',
      [
        { scheme: 'basic', params: { realm: 'a, b' } },
        { scheme: 'bearer', params: { realm: 'https://t/"q"', error: 'insufficient_scope' } },
      ],
    ],
    ['', []],
    ['@@@', []],
  ])('parses %j', (header, expected) => {
    expect(parseChallenges(header)).toEqual(expected);
  });
});
