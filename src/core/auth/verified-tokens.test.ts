// The memory of verified tokens: a remembered payload is handed back until the token's `exp` (by
// the clock given, at every use), a token not yet valid (`nbf`) is not remembered, the map is
// bounded, and it holds no token itself. With real ES256 keys (LocalKeys on a DATA_DIR mirror):
// a forged token fails every time (failures are never remembered), and an expired admin token
// that verified once is refused. The bounds a caller sets (the authorizer's image tokens: 5 s,
// 10,000 entries) and forget, with its guard against a verification in flight across a change. Rotation of admin tokens after a use is covered on a running
// core by src/core/admin-token.test.ts.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../errors.js';
import { LocalKeys } from './local-keys.js';
import { MAX_ENTRIES, VerifiedTokens } from './verified-tokens.js';

describe('VerifiedTokens', () => {
  it('hands a payload back until its exp, by the clock at each use', () => {
    let now = 1_000_000_000_000;
    const tokens = new VerifiedTokens(() => now);
    tokens.remember('a.b.c', { infra_env_id: 'x', exp: now / 1000 + 60 });
    tokens.remember('d.e.f', { infra_env_id: 'y' });
    expect(tokens.get('a.b.c')?.payload).toEqual({ infra_env_id: 'x', exp: now / 1000 + 60 });
    now += 59_999;
    expect(tokens.get('a.b.c')).toBeDefined();
    now += 1;
    expect(tokens.get('a.b.c')).toBeUndefined();
    expect(tokens.get('a.b.c')).toBeUndefined(); // gone, not only hidden
    expect(tokens.get('d.e.f')?.payload).toEqual({ infra_env_id: 'y' }); // no exp: no expiry of its own
    expect(tokens.get('x.y.z')).toBeUndefined();
  });

  it('does not remember a token that is not valid yet (nbf in the future)', () => {
    const now = 1_000_000_000_000;
    const tokens = new VerifiedTokens(() => now);
    tokens.remember('a.b.c', { nbf: now / 1000 + 1 });
    tokens.remember('d.e.f', { nbf: now / 1000 });
    expect(tokens.get('a.b.c')).toBeUndefined();
    expect(tokens.get('d.e.f')).toBeDefined();
  });

  it('holds at most MAX_ENTRIES, the least recently used going first, and never the tokens themselves', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('first', { n: 0 });
    for (let i = 1; i <= MAX_ENTRIES; i++) tokens.remember(`token-${i}`, { n: i });
    expect(tokens.size).toBe(MAX_ENTRIES);
    expect(tokens.get('first')).toBeUndefined();
    expect(tokens.get(`token-${MAX_ENTRIES}`)?.payload).toEqual({ n: MAX_ENTRIES });
    const keys = [...(tokens as unknown as { entries: Map<string, unknown> }).entries.keys()];
    expect(keys.some((k) => k.startsWith('token-'))).toBe(false);
  });

  it('bounds entries and their age by its options, whatever the token says', () => {
    let now = 1_000_000_000_000;
    const tokens = new VerifiedTokens(() => now, { maxEntries: 3, maxAgeMs: 5_000 });
    tokens.remember('long.lived.token', { sub: 'a', exp: now / 1000 + 3600 });
    tokens.remember('no.exp.token', { sub: 'a' });
    now += 4_999;
    expect(tokens.get('long.lived.token')).toBeDefined();
    expect(tokens.get('no.exp.token')).toBeDefined();
    now += 1;
    expect(tokens.get('long.lived.token')).toBeUndefined();
    expect(tokens.get('no.exp.token')).toBeUndefined();
    for (let i = 0; i < 5; i++) tokens.remember(`t-${i}`, { sub: 'a' });
    expect(tokens.size).toBe(3);
    expect(tokens.get('t-0')).toBeUndefined();
    expect(tokens.get('t-4')).toBeDefined();
  });

  it('forgets the entries a change names, and never remembers a verification that started before it', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.one.x', { sub: 'a' });
    tokens.remember('a.two.x', { sub: 'a' });
    tokens.remember('b.one.x', { sub: 'b' });
    const before = tokens.since();
    tokens.forget((claims) => claims.sub === 'a');
    expect(tokens.get('a.one.x')).toBeUndefined();
    expect(tokens.get('a.two.x')).toBeUndefined();
    expect(tokens.get('b.one.x')).toBeDefined();
    // a verification that read the key before the change finishes after it: not remembered
    tokens.remember('a.three.x', { sub: 'a' }, before);
    expect(tokens.get('a.three.x')).toBeUndefined();
    tokens.remember('a.three.x', { sub: 'a' }, tokens.since());
    expect(tokens.get('a.three.x')).toBeDefined();
  });
});

describe('LocalKeys.verify with the memory', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  async function keys(options: { adminTokenTtlMs?: number } = {}): Promise<{ keys: LocalKeys; dataDir: string }> {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'verified-tokens-'));
    dirs.push(dataDir);
    const pair = await generateKeyPair('ES256', { extractable: true });
    await mkdir(path.join(dataDir, 'auth'), { recursive: true });
    await writeFile(path.join(dataDir, 'auth', 'ec-private-key.pem'), await exportPKCS8(pair.privateKey));
    return { keys: await LocalKeys.fromDataDir(dataDir, options), dataDir };
  }

  it('verifies an InfraEnv token, then answers it again the same; a forged one fails every time', async () => {
    const { keys: k } = await keys();
    const token = await k.infraEnvToken('0b4e1c5a-3a43-4f4e-9f57-3c6b1e2a9d10');
    for (let i = 0; i < 3; i++)
      await expect(k.verify(token)).resolves.toEqual({
        kind: 'infra-env',
        infraEnvId: '0b4e1c5a-3a43-4f4e-9f57-3c6b1e2a9d10',
      });
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({ infra_env_id: '0b4e1c5a-3a43-4f4e-9f57-3c6b1e2a9d10' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .sign(other.privateKey);
    for (let i = 0; i < 2; i++) await expect(k.verify(forged)).rejects.toThrow(UnauthorizedError);
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(k.verify(tampered)).rejects.toThrow(UnauthorizedError);
  });

  it('refuses an admin token that verified once when its exp passes', async () => {
    const { keys: k } = await keys({ adminTokenTtlMs: 1_000 });
    const admin = await k.adminToken();
    await expect(k.verify(admin)).resolves.toEqual({ kind: 'admin' });
    const { exp } = JSON.parse(Buffer.from(admin.split('.')[1]!, 'base64url').toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    await expect(k.verify(admin)).rejects.toThrow(UnauthorizedError);
  });
});
