// The authorizer as a table (rows in test-support/authorizer-cases.ts): credentials on each
// channel × the operation's scope → open, 401 or 403 with its message, for AUTH_TYPE=none and
// local, with real ES256 keys, image tokens and image-URL tokens. The repository is an in-memory
// one holding just what the authorizer reads; authorizer.postgres.test.ts runs the same rows on the
// real repository, so the two cannot disagree unnoticed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { UrlTokenRow } from '../db/repository.js';
import type { InfraEnvRecord } from '../model.js';
import {
  AUTHORIZER_ROWS,
  buildWorld,
  credentialsOf,
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
