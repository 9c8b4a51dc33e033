// Test support: the all-in-one service (image side + in-process core) in this process, on a
// fresh database of the run's PostgreSQL (src/core/test-support/harness.ts backends) or another
// one's (replicas sharing a database), with a clock the test moves and every log line captured.
// Used only by *.test.ts files.
// Does NOT: fake the database, the HTTP layer or the image store (the demo fixture ISO is served).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { embeddedBackend } from '../../src/platform/db/test-support/backends.js';
import { createLogger } from '../../src/logger.js';
import { type RunningService, startService } from '../../src/service.js';
import type { HostNetwork } from '../../src/startup/host-routes.js';

export { API_PREFIX as API } from '../../src/url-grammar.js';
export const PULL_SECRET = JSON.stringify({
  auths: { 'quay.io': { auth: Buffer.from('user:pass').toString('base64'), email: 'a@b.c' } },
});
/** The demo fixture image's openshift_version. */
export const DEMO_VERSION = '4.17';

export interface AllInOne {
  service: RunningService;
  dir: string;
  /** The service's own database (read tables directly with `sql`). */
  databaseUrl: string;
  logs: string[];
  /** The core's and the boot-event dedupe's clock. */
  clock: { now: number; advance(ms: number): void };
  /** Admin Authorization header with AUTH_TYPE=local, {} otherwise. */
  admin: Record<string, string>;
  call(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startAllInOne(
  env: Record<string, string> = {},
  /**
   * awaitImages false: return while base images still load (a slow origin's progress is the test).
   * hostNetwork: the routes and addresses the service sees instead of this host's.
   * sharedDatabaseUrl: another AllInOne's database (a second replica); that one owns and drops it.
   */
  {
    awaitImages = true,
    hostNetwork,
    sharedDatabaseUrl,
  }: { awaitImages?: boolean; hostNetwork?: HostNetwork; sharedDatabaseUrl?: string } = {},
): Promise<AllInOne> {
  const storage = sharedDatabaseUrl
    ? { databaseUrl: sharedDatabaseUrl, cleanup: () => Promise.resolve() }
    : await embeddedBackend().create();
  const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-all-in-one-'));
  const logs: string[] = [];
  const clock = {
    now: Date.now(),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const config = loadConfig({
    LISTEN_PORT: '0',
    LISTEN_ADDRESS: '127.0.0.1',
    DATA_DIR: dir,
    DATABASE_URL: storage.databaseUrl!,
    AUTH_TYPE: 'none', // the default is local: tests that want the admin token say so
    ...env,
  });
  let service: RunningService;
  try {
    service = await startService(config, createLogger('debug', { write: (line: string) => logs.push(line) }), {
      defaultMetrics: false,
      now: () => new Date(clock.now),
      ...(hostNetwork ? { hostNetwork } : {}),
    });
    if (awaitImages) await service.imagesLoaded;
  } catch (err) {
    await storage.cleanup();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const admin: Record<string, string> =
    env.AUTH_TYPE === 'local'
      ? { Authorization: `Bearer ${(await readFile(path.join(dir, 'auth', 'admin-token'), 'utf8')).trim()}` }
      : {};
  const db = new pg.Client({ connectionString: storage.databaseUrl });
  await db.connect();
  return {
    service,
    dir,
    databaseUrl: storage.databaseUrl!,
    logs,
    clock,
    admin,
    call: (method, p, body, headers = {}) =>
      fetch(service.url + p, {
        method,
        headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...admin, ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    sql: async <T>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as T[],
    async close() {
      await db.end();
      await service.close();
      await storage.cleanup();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
