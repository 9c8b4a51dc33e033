// The wings' migrations on PostgreSQL (the run's embedded server): a fresh database gets every
// table and records each migration as earlier releases did (version and name); one already
// migrated gets nothing again; one an older release left before the BMC wing existed (the core's
// migrations 1–6 only) gets the BMC wing's 7 and 8 and its BMC tables. The records and SQL
// themselves are pinned in service-database.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_MIGRATIONS } from './core/db/migrations.js';
import { embeddedBackend } from './platform/db/test-support/backends.js';
import { migrate, migrationOrder } from './platform/db/migration-runner.js';
import { openDatabase, type SqlDatabase } from './platform/db/sql.js';
import { SERVICE_MIGRATIONS } from './service-database.js';

describe('the service migrations on PostgreSQL', () => {
  const dbs: SqlDatabase[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  async function database(): Promise<SqlDatabase> {
    const storage = await embeddedBackend().create();
    cleanups.push(storage.cleanup);
    const db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
    dbs.push(db);
    return db;
  }
  const records = (db: SqlDatabase) =>
    db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
  const tables = async (db: SqlDatabase) =>
    (
      await db.query<{ t: string }>(
        `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`,
      )
    ).map((r) => r.t);
  const all = migrationOrder(SERVICE_MIGRATIONS);

  beforeAll(async () => {
    await database();
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
    for (const c of cleanups) await c();
  });

  it('builds a fresh database, records each migration by version and name, and applies nothing twice', async () => {
    const db = dbs[0]!;
    expect(await migrate(db, SERVICE_MIGRATIONS)).toEqual(all.map((m) => m.version));
    expect(await records(db)).toEqual(all.map((m) => ({ version: m.version, name: m.name })));
    expect(await tables(db)).toEqual([
      'bmc_job_reads',
      'bmc_jobs',
      'bmcs',
      'events',
      'hosts',
      'image_url_tokens',
      'infra_envs',
      'pxe_assignments',
      'schema_migrations',
      'service_keys',
    ]);
    expect(await migrate(db, SERVICE_MIGRATIONS)).toEqual([]);
  });

  it("upgrades a database from before the BMC wing (migrations 1–6) with the later wings' tables only", async () => {
    const db = await database();
    expect(await migrate(db, [CORE_MIGRATIONS])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await tables(db)).not.toContain('bmcs');
    expect(await migrate(db, SERVICE_MIGRATIONS)).toEqual([7, 8, 9, 10]);
    expect(await tables(db)).toEqual(expect.arrayContaining(['bmcs', 'bmc_jobs', 'bmc_job_reads', 'pxe_assignments']));
    expect(await records(db)).toEqual(all.map((m) => ({ version: m.version, name: m.name })));
  });
});
