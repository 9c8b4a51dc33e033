// The authorizer's table (test-support/authorizer-cases.ts) on the real repository: the same rows
// as authorizer.test.ts, with the InfraEnvs and image-URL tokens stored in PostgreSQL (the run's
// embedded server, and TEST_DATABASE_URL when it is set). Agreement here is what shows that
// the in-memory repository of the fast table answers as the real one does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CORE_MIGRATIONS } from '../db/migrations.js';
import { migrate } from '../../platform/db/migration-runner.js';
import { createRepository } from '../db/repository.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { AUTHORIZER_ROWS, buildWorld, credentialsOf, verdictOf, type World } from './test-support/authorizer-cases.js';

for (const backend of backends()) {
  describe(`Authorizer: table on ${backend.name}`, () => {
    let db: SqlDatabase;
    let world: World;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      const storage = await backend.create();
      cleanup = storage.cleanup;
      db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
      await migrate(db, [CORE_MIGRATIONS]);
      world = await buildWorld(createRepository(db));
    });
    afterAll(async () => {
      await world?.remove();
      await db?.close();
      await cleanup?.();
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
}
