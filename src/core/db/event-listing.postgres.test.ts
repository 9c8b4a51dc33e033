// The keyset batches a streamed event listing reads (repository.listEventsAfter): read batch by
// batch, ascending and descending, they are exactly the one-query listing, also for events whose
// times carry microseconds (SQL-written or imported) and for many events in the same instant.
// On the embedded server, and on TEST_DATABASE_URL when set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../platform/db/test-support/backends.js';
import { CORE_MIGRATIONS } from './migrations.js';
import { migrate } from '../../platform/db/migration-runner.js';
import { createRepository, type EventCursor, type Repository } from './repository.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';

for (const backend of backends()) {
  describe(`event listing batches on ${backend.name}`, () => {
    let db: SqlDatabase;
    let repo: Repository;
    let cleanup: () => Promise<void>;
    const infraEnvId = randomUUID();
    beforeAll(async () => {
      const storage = await backend.create();
      cleanup = storage.cleanup;
      db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
      await migrate(db, [CORE_MIGRATIONS]);
      repo = createRepository(db);
      // 250 events: microsecond times, and runs of 7 in the very same instant
      await db.query(
        `INSERT INTO events (name, infra_env_id, severity, message, event_time)
         SELECT 'e', $1, CASE WHEN i % 3 = 0 THEN 'warning' ELSE 'info' END, 'm' || i,
                '2026-01-01T00:00:00Z'::timestamptz + ((i / 7) * 1001 || ' microseconds')::interval
         FROM generate_series(1, 250) AS i`,
        [infraEnvId],
      );
    });
    afterAll(async () => {
      await db?.close();
      await cleanup?.();
    });

    for (const order of ['ascending', 'descending'] as const) {
      it(`batches of 40, ${order}, give the whole listing once, in order`, async () => {
        const filter = { infraEnvId, order };
        const whole = (await repo.listEvents(filter)).events.map((e) => e.seq);
        const batched: number[] = [];
        let cursor: EventCursor | undefined;
        for (let i = 0; i < 20; i++) {
          const batch = await repo.listEventsAfter(filter, cursor ? { after: cursor, limit: 40 } : { limit: 40 });
          batched.push(...batch.map((e) => e.seq));
          const last = batch.at(-1);
          if (batch.length < 40 || !last) break;
          cursor = { eventTime: last.eventTime, seq: last.seq };
        }
        expect(batched).toEqual(whole);
        expect(new Set(batched).size).toBe(250);
      });
    }

    it('an offset starts the first batch, and a severity filter applies to every batch', async () => {
      const filter = { infraEnvId, order: 'ascending' as const, severities: ['warning' as const] };
      const whole = (await repo.listEvents(filter)).events.map((e) => e.seq);
      const first = await repo.listEventsAfter(filter, { offset: 10, limit: 30 });
      expect(first.map((e) => e.seq)).toEqual(whole.slice(10, 40));
      const last = first.at(-1)!;
      const next = await repo.listEventsAfter(filter, {
        after: { eventTime: last.eventTime, seq: last.seq },
        limit: 100,
      });
      expect(next.map((e) => e.seq)).toEqual(whole.slice(40));
      expect((await repo.countEvents(filter)).total).toBe(whole.length);
    });
  });
}
