// Event retention on real PostgreSQL: a pass deletes events older than the age limit, an
// InfraEnv's events beyond its newest N and all beyond the newest total, in batches (more rows
// than one batch here), keeps everything else, and does nothing while another replica holds the
// retention lock. On the embedded server, and on TEST_DATABASE_URL when set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_MIGRATIONS } from '../db/migrations.js';
import { migrate } from '../../platform/db/migration-runner.js';
import { createRepository, type Repository } from '../db/repository.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { EVENTS_PRUNE_LOCK, PRUNE_BATCH, pruneEventsOnce } from './retention.js';

const DAY = 24 * 3_600_000;

for (const backend of backends()) {
  describe(`event retention on ${backend.name}`, () => {
    let db: SqlDatabase;
    let repo: Repository;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      const storage = await backend.create();
      cleanup = storage.cleanup;
      db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
      await migrate(db, [CORE_MIGRATIONS]);
      repo = createRepository(db);
    });
    afterAll(async () => {
      await db?.close();
      await cleanup?.();
    });

    /** Inserts `n` events of one InfraEnv (or none) at `at`, one statement. */
    async function insert(n: number, infraEnvId: string | null, at: Date): Promise<void> {
      await db.query(
        `INSERT INTO events (name, infra_env_id, severity, message, event_time)
         SELECT 'e', $1::uuid, 'info', 'm' || i, $2::timestamptz + (i || ' milliseconds')::interval
         FROM generate_series(1, $3) AS i`,
        [infraEnvId, at, n],
      );
    }
    const count = async (where = 'TRUE', params: unknown[] = []) =>
      Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE ${where}`, params))[0]!.n);

    it('deletes by age, per InfraEnv beyond its cap and overall beyond the total, batch by batch', async () => {
      const now = new Date('2026-06-01T00:00:00Z');
      const big = randomUUID();
      const small = randomUUID();
      await insert(PRUNE_BATCH + 1500, null, new Date(now.getTime() - 40 * DAY)); // old: all go
      await insert(PRUNE_BATCH + 2000, big, new Date(now.getTime() - DAY)); // keep the newest 3000
      await insert(100, small, new Date(now.getTime() - DAY)); // under every cap
      await insert(50, null, new Date(now.getTime() - 1000));
      const deleted = await pruneEventsOnce({
        repo,
        now: () => now,
        settings: { maxAgeMs: 30 * DAY, maxPerInfraEnv: 3000, maxTotal: 3100 },
      });
      expect(deleted).toBe(PRUNE_BATCH + 1500 + (PRUNE_BATCH + 2000 - 3000) + 50);
      expect(await count('event_time < $1', [new Date(now.getTime() - 30 * DAY)])).toBe(0);
      // the total cap (3100) then removed the oldest 50 beyond it, in insertion order: 3000 + 100 + 50 → 3100
      expect(await count()).toBe(3100);
      expect(await count('infra_env_id = $1', [small])).toBe(100);
      const bigLeft = await count('infra_env_id = $1', [big]);
      expect(bigLeft).toBe(3000 - 50);
      // what is left of the big InfraEnv is its newest events
      const oldestKept = await db.query<{ m: string }>(
        'SELECT message AS m FROM events WHERE infra_env_id = $1 ORDER BY event_time LIMIT 1',
        [big],
      );
      expect(oldestKept[0]!.m).toBe(`m${PRUNE_BATCH + 2000 - 3000 + 1 + 50}`);
    });

    it('does nothing while another replica holds the retention lock', async () => {
      await insert(10, null, new Date('2000-01-01T00:00:00Z'));
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holder = db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [EVENTS_PRUNE_LOCK]);
        locked();
        await held;
      });
      await isLocked;
      const settings = { maxAgeMs: DAY, maxPerInfraEnv: 1_000_000, maxTotal: 1_000_000 };
      expect(await pruneEventsOnce({ repo, now: () => new Date(), settings })).toBe(-1);
      release();
      await holder;
      expect(await pruneEventsOnce({ repo, now: () => new Date(), settings })).toBeGreaterThanOrEqual(10);
    });
  });
}
