// Diagnostic for workload 6: the agent heartbeat's SQL alone on the embedded PostgreSQL server,
// without HTTP, one statement sequence after the other, for 5,000
// hosts spread N per InfraEnv. Compares what heartbeat() runs today with two leaner shapes,
// which bounds the rate any HTTP front can reach; then times one host-monitor pass over the
// 5,000 hosts, during which every other statement waits (one transaction on one connection).
//   node bench/run.mjs diag heartbeat-sql [hosts-per-infraenv ...]   (default 1 100 1000)
// Loads the built service's storage modules (dist/src/platform/db, dist/src/core/db) at run time.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface Db {
  query(sql: string, params?: unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}
interface HostLike {
  checkedInAt: Date;
}
interface Repo {
  transaction<T>(fn: (r: Repo) => Promise<T>): Promise<T>;
  getHost(ie: string, id: string, o?: { forUpdate?: boolean }): Promise<HostLike | undefined>;
  listHosts(ie: string): Promise<unknown[]>;
  upsertHost(h: HostLike): Promise<void>;
}

const HOSTS = 5000;
const ROUNDS = 2000;

async function load<T>(serviceRoot: string, rel: string): Promise<T> {
  return (await import(pathToFileURL(path.join(serviceRoot, 'dist', 'src', rel)).href)) as T;
}

async function one(serviceRoot: string, perInfraEnv: number): Promise<void> {
  const { openDatabase } = await load<{ openDatabase(o: { dataDir: string }): Promise<Db> }>(
    serviceRoot,
    'platform/db/sql.js',
  );
  const { migrate } = await load<{ migrate(db: Db, wings: readonly unknown[]): Promise<void> }>(
    serviceRoot,
    'platform/db/migration-runner.js',
  );
  const { CORE_MIGRATIONS } = await load<{ CORE_MIGRATIONS: unknown }>(serviceRoot, 'core/db/migrations.js');
  const { createRepository } = await load<{ createRepository(db: Db): Repo }>(serviceRoot, 'core/db/repository.js');
  const { monitorOnce } = await load<{
    monitorOnce(o: { repo: Repo; maxDisconnectionMs: number; now(): Date }): Promise<number>;
  }>(serviceRoot, 'core/host/monitor.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bootsmith-heartbeat-sql-'));
  const db = await openDatabase({ dataDir: dir });
  try {
    await migrate(db, [CORE_MIGRATIONS]);
    const repo = createRepository(db);
    const hosts: Array<[string, string]> = [];
    for (let i = 0; i < Math.ceil(HOSTS / perInfraEnv); i++) {
      const ie = randomUUID();
      await db.query(
        `INSERT INTO infra_envs (id, name, openshift_version, cpu_architecture, image_type, pull_secret, image_token_key, created_at, updated_at)
         VALUES ($1, 'bench', '4.17', 'x86_64', 'full-iso', '{}', 'k', now(), now())`,
        [ie],
      );
      for (let j = 0; j < perInfraEnv && hosts.length < HOSTS; j++) {
        const id = randomUUID();
        await db.query(
          `INSERT INTO hosts (infra_env_id, id, status, status_info, checked_in_at, registered_at, status_updated_at, created_at, updated_at)
           VALUES ($1, $2, 'discovering-unbound', 'Waiting for host to send hardware details', now(), now(), now(), now(), now())`,
          [ie, id],
        );
        hosts.push([ie, id]);
      }
    }
    const time = async (name: string, fn: (ie: string, id: string) => Promise<unknown>) => {
      const t0 = performance.now();
      for (let i = 0; i < ROUNDS; i++) {
        const [ie, id] = hosts[(i * 7919) % hosts.length]!;
        await fn(ie, id);
      }
      const ms = (performance.now() - t0) / ROUNDS;
      process.stdout.write(
        `${String(perInfraEnv).padStart(5)} hosts/InfraEnv  ${name.padEnd(60)} ${ms.toFixed(3)} ms → ${Math.round(1000 / ms)}/s\n`,
      );
    };
    await time('today: tx { host FOR UPDATE; all siblings; upsert }', (ie, id) =>
      repo.transaction(async (r) => {
        const h = (await r.getHost(ie, id, { forUpdate: true }))!;
        await r.listHosts(ie);
        h.checkedInAt = new Date();
        await r.upsertHost(h);
      }),
    );
    await time('no sibling list: tx { host FOR UPDATE; upsert }', (ie, id) =>
      repo.transaction(async (r) => {
        const h = (await r.getHost(ie, id, { forUpdate: true }))!;
        h.checkedInAt = new Date();
        await r.upsertHost(h);
      }),
    );
    await time('fast path: one UPDATE … RETURNING, no transaction', (ie, id) =>
      db.query(
        'UPDATE hosts SET checked_in_at = now() WHERE infra_env_id = $1 AND id = $2 RETURNING status, status_info, inventory IS NOT NULL AS has_inventory',
        [ie, id],
      ),
    );
    // how long the event loop goes without running a timer while the pass runs
    let lastTick = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const t = performance.now();
      longestGap = Math.max(longestGap, t - lastTick);
      lastTick = t;
    }, 5);
    const t0 = performance.now();
    const examined = await monitorOnce({ repo, maxDisconnectionMs: 180_000, now: () => new Date() });
    const passMs = performance.now() - t0;
    clearInterval(ticker);
    longestGap = Math.max(longestGap, performance.now() - lastTick);
    process.stdout.write(
      `${String(perInfraEnv).padStart(5)} hosts/InfraEnv  ${'one host-monitor pass (one transaction)'.padEnd(60)} ${Math.round(passMs)} ms for ${examined} hosts; ` +
        `longest event-loop gap ${Math.round(longestGap)} ms\n`,
    );
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function heartbeatSql(args: readonly string[], serviceRoot: string): Promise<number> {
  const sizes = args.length > 0 ? args.map(Number) : [1, 100, 1000];
  for (const n of sizes) await one(serviceRoot, n);
  return 0;
}
