// Test support for the handlers' suites (src/core/handlers/*.test.ts): a core behind a real HTTP
// server on loopback per storage backend (src/core/test-support/harness.ts), swagger conformance of
// response bodies when ../shared/contracts is present, and small helpers the suites share.
// Does NOT: mock the database or the router, or assert anything but contract conformance.
// Used only by *.test.ts files.
import { afterAll, beforeAll, expect } from 'vitest';
import { HAVE_SWAGGER } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { GO_OPENAPI_ERROR, loadContract } from './contract-schema.js';
import type { Backend } from '../../platform/db/test-support/backends.js';
import { type CoreOverrides, type Harness, PULL_SECRET, http, startHarness } from './harness.js';

// Without ../shared the conforms() checks cannot run: skipped with a warning here, a failure under CI.
const contract = unavailable({ '../shared/contracts (the upstream swagger)': HAVE_SWAGGER })
  ? undefined
  : loadContract();

/** Checks `body` against a swagger definition (outside CI, no check when the contracts are absent). */
export function conforms(definition: string, body: unknown): void {
  if (!contract) return;
  expect(contract.validate(definition, body), `${definition}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
}

/** A go-openapi framework error (400 parse, 404 route, 405, 422 with a 6xx code): `{code, message}`. */
export function frameworkError(body: unknown, code: number, message?: RegExp): void {
  conforms(GO_OPENAPI_ERROR, body);
  expect((body as { code?: unknown }).code, JSON.stringify(body)).toBe(code);
  if (message) expect((body as { message?: unknown }).message, JSON.stringify(body)).toMatch(message);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until `ok` or the deadline (bounded: returns the last value either way). */
export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await sleep(50);
  }
}

export interface ApiFixture {
  /** The running harness (replaced by restart()). */
  readonly h: Harness;
  readonly storage: { dataDir: string; databaseUrl?: string };
  /** Closes the core and starts a new one on the same storage. */
  restart(): Promise<void>;
  /** POSTs an InfraEnv (name lab, 4.16, the test pull secret, plus `extra`) and checks the 201. */
  newInfraEnv(extra?: Record<string, unknown>): Promise<{ id: string } & Record<string, unknown>>;
}

/** Starts a core on fresh storage of `backend` before the suite's tests and closes it after. */
export function useApi(
  backend: Backend,
  overrides: CoreOverrides = { hostMaxDisconnectionMs: 1500, monitorIntervalMs: 100 },
): ApiFixture {
  let h: Harness | undefined;
  let storage: { dataDir: string; databaseUrl?: string; cleanup(): Promise<void> } | undefined;
  beforeAll(async () => {
    storage = await backend.create();
    h = await startHarness(storage, overrides);
  });
  afterAll(async () => {
    await h?.close();
    await storage?.cleanup();
  });
  const fixture: ApiFixture = {
    get h() {
      if (!h) throw new Error('the API harness is not started (use inside tests)');
      return h;
    },
    get storage() {
      if (!storage) throw new Error('the API storage is not created (use inside tests)');
      return storage;
    },
    async restart() {
      await fixture.h.close();
      h = await startHarness(fixture.storage, overrides);
    },
    async newInfraEnv(extra = {}) {
      const r = await http('POST', `${fixture.h.api}/infra-envs`, {
        name: 'lab',
        pull_secret: PULL_SECRET,
        openshift_version: '4.16',
        ...extra,
      });
      expect(r.status, r.text).toBe(201);
      conforms('infra-env', r.json);
      return r.json as { id: string } & Record<string, unknown>;
    },
  };
  return fixture;
}
