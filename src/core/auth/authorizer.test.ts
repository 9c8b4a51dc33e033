// The authorizer as a table (rows in test-support/authorizer-cases.ts): credentials on each
// channel × the operation's scope → open, 401 or 403 with its message, for AUTH_TYPE=none and
// local, with real ES256 keys, image tokens and image-URL tokens. The repository is an in-memory
// one holding just what the authorizer reads; authorizer.postgres.test.ts runs the same rows on the
// real repository, so the two cannot disagree unnoticed. Then the memory of verified image tokens:
// one read of the InfraEnv's key per token and IMAGE_TOKEN_MAX_AGE_MS, expiry at each use, a
// changed InfraEnv forgotten at once (forgetInfraEnv), also across a verification in flight; and
// the memory of which InfraEnvs exist (infraEnvExists) under the same bound.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import type { UrlTokenRow } from '../db/repository.js';
import type { InfraEnvRecord } from '../model.js';
import { type Authorizer, IMAGE_TOKEN_MAX_AGE_MS, type Scope } from './authorizer.js';
import { issueImageToken, newImageTokenKey } from './image-tokens.js';
import {
  AUTHORIZER_ROWS,
  buildWorld,
  credentialsOf,
  INFRA_ENV_A,
  INFRA_ENV_B,
  INFRA_ENV_GONE,
  verdictOf,
  type AuthorizerRepository,
  type World,
} from './test-support/authorizer-cases.js';

function memoryRepository(): AuthorizerRepository {
  const infraEnvs = new Map<string, InfraEnvRecord>();
  const urlTokens = new Map<string, UrlTokenRow>();
  return {
    getInfraEnv: (id) => Promise.resolve(infraEnvs.get(id)),
    getUrlToken: (hash) => Promise.resolve(urlTokens.get(hash)),
    insertInfraEnv(rec) {
      infraEnvs.set(rec.id, structuredClone(rec));
      return Promise.resolve();
    },
    insertUrlTokens(rows) {
      for (const r of rows) if (!urlTokens.has(r.tokenHash)) urlTokens.set(r.tokenHash, { ...r });
      return Promise.resolve();
    },
  };
}

describe('Authorizer: table (in-memory repository)', () => {
  let world: World;
  beforeAll(async () => {
    world = await buildWorld(memoryRepository());
  });
  afterAll(async () => {
    await world?.remove();
  });

  it.each(AUTHORIZER_ROWS.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const verdict = await verdictOf(
      world.authorizer(row.authType ?? 'local'),
      credentialsOf(row, world.tokens),
      row.scope,
    );
    expect(verdict).toEqual(row.verdict);
  });
});

describe('Authorizer: verified image tokens are remembered, and forgotten when their InfraEnv changes', () => {
  const A: Scope = { infraEnvId: INFRA_ENV_A, allowImageToken: true };
  const B: Scope = { infraEnvId: INFRA_ENV_B, allowImageToken: true };
  let world: World;
  let memory: AuthorizerRepository;
  let reads = 0;
  /** While set, reads of an InfraEnv wait for it (a verification in flight). */
  let gate: Promise<void> | undefined;

  beforeAll(async () => {
    memory = memoryRepository();
    world = await buildWorld({
      ...memory,
      getInfraEnv: async (id, options) => {
        reads++;
        await gate;
        return memory.getInfraEnv(id, options);
      },
    });
  });
  afterEach(() => vi.useRealTimers());
  afterAll(async () => {
    await world?.remove();
  });

  const verdict = (authorizer: Authorizer, token: string, scope: Scope) =>
    verdictOf(authorizer, { imageToken: token }, scope);
  const rotateKeyOfA = async () =>
    memory.insertInfraEnv({ ...(await memory.getInfraEnv(INFRA_ENV_A))!, imageTokenKey: newImageTokenKey() });

  it('reads the key once per token and age, answers another InfraEnv from memory, refuses once forgotten', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const authorizer = world.authorizer('local');
    const before = reads;
    expect(await verdict(authorizer, world.tokens.imageA, A)).toBe('open');
    expect(await verdict(authorizer, world.tokens.imageA, A)).toBe('open');
    expect(reads - before).toBe(1);
    expect(await verdict(authorizer, world.tokens.imageA, B)).toEqual({
      status: 401,
      message: 'invalid or expired credentials',
    });
    expect(reads - before).toBe(1);
    // past the age bound the key is read again
    vi.setSystemTime(Date.now() + IMAGE_TOKEN_MAX_AGE_MS);
    expect(await verdict(authorizer, world.tokens.imageA, A)).toBe('open');
    expect(reads - before).toBe(2);
    // a new key: another replica's memory still opens it within the bound; this one forgets at once
    await rotateKeyOfA();
    expect(await verdict(authorizer, world.tokens.imageA, A)).toBe('open');
    authorizer.forgetInfraEnv(INFRA_ENV_A);
    expect((await verdict(authorizer, world.tokens.imageA, A)) as object).toMatchObject({ status: 401 });
    expect((await verdict(authorizer, world.tokens.imageA, A)) as object).toMatchObject({ status: 401 });
    expect(reads - before).toBe(4); // failures are not remembered
  });

  it('checks expiry at every use of a remembered token', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const key = (await memory.getInfraEnv(INFRA_ENV_A))!.imageTokenKey;
    const { token, expiresAt } = await issueImageToken(INFRA_ENV_A, key, 2_000);
    const authorizer = world.authorizer('local');
    expect(await verdict(authorizer, token, A)).toBe('open');
    vi.setSystemTime(expiresAt.getTime() - 1);
    expect(await verdict(authorizer, token, A)).toBe('open');
    const readsBefore = reads;
    vi.setSystemTime(expiresAt.getTime());
    expect((await verdict(authorizer, token, A)) as object).toMatchObject({ status: 401 });
    expect(reads - readsBefore).toBe(1);
  });

  it('reads whether an InfraEnv exists once per age bound, never remembers a missing one, forgets at a change', async () => {
    const authorizer = world.authorizer('local');
    const before = reads;
    expect(await authorizer.infraEnvExists(INFRA_ENV_A)).toBe(true);
    expect(await authorizer.infraEnvExists(INFRA_ENV_A)).toBe(true);
    expect(reads - before).toBe(1);
    expect(await authorizer.infraEnvExists(INFRA_ENV_GONE)).toBe(false);
    expect(await authorizer.infraEnvExists(INFRA_ENV_GONE)).toBe(false);
    expect(reads - before).toBe(3);
    authorizer.forgetInfraEnv(INFRA_ENV_A);
    expect(await authorizer.infraEnvExists(INFRA_ENV_A)).toBe(true);
    expect(reads - before).toBe(4);
  });

  it('does not remember a verification that was in flight while the InfraEnv changed', async () => {
    const authorizer = world.authorizer('local');
    const key = (await memory.getInfraEnv(INFRA_ENV_A))!.imageTokenKey;
    const { token } = await issueImageToken(INFRA_ENV_A, key);
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    const inFlight = verdict(authorizer, token, A);
    await rotateKeyOfA().then(() => authorizer.forgetInfraEnv(INFRA_ENV_A));
    // the read was asked before the change: whatever it returns, it must not be remembered
    const stale = { ...(await memory.getInfraEnv(INFRA_ENV_A))!, imageTokenKey: key };
    const realGet = memory.getInfraEnv;
    memory.getInfraEnv = () => Promise.resolve(stale);
    release();
    expect(await inFlight).toBe('open');
    memory.getInfraEnv = realGet;
    gate = undefined;
    expect((await verdict(authorizer, token, A)) as object).toMatchObject({ status: 401 });
  });
});
