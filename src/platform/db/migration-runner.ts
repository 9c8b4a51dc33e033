// The migration runner of the one database: applies the wings' schema migrations in version order.
//
// Each wing owns its list (the core's: src/core/db/migrations.ts; the BMC wing's:
// src/bmc/store/migrations.ts) and src/service-database.ts hands the lists over. The versions are
// one sequence over every wing (schema_migrations keys on them): a new migration takes the next
// free number, whichever wing it belongs to, and one that reads another wing's table comes after
// that table's. Two lists naming the same version are refused before anything runs.
// Each migration runs once, inside a transaction, guarded by an advisory lock so replicas starting
// together do not race; what ran is recorded in schema_migrations (version, name), the record an
// older bootsmith left is honoured as it is. Append new migrations; never edit an applied one.
// Does NOT: know any table, or decide which wings a process runs.
import type { SqlDatabase } from './sql.js';

export interface Migration {
  version: number;
  name: string;
  /** Plain PostgreSQL 13+ SQL (the embedded server and DATABASE_URL alike). */
  sql: string;
}

/** One wing's migrations. */
export type MigrationList = readonly Migration[];

/** Arbitrary constant naming the migration lock (pg advisory locks are keyed by bigint). */
const MIGRATION_LOCK = 7_236_001;

/** The wings' migrations as one list in the order they apply; throws when two share a version. */
export function migrationOrder(wings: readonly MigrationList[]): Migration[] {
  const byVersion = new Map<number, Migration>();
  for (const m of wings.flat()) {
    const other = byVersion.get(m.version);
    if (other)
      throw new Error(
        `migrations ${JSON.stringify(other.name)} and ${JSON.stringify(m.name)} share version ${m.version}`,
      );
    byVersion.set(m.version, m);
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version);
}

/** Applies what `wings` hold and the database has not recorded; returns the versions applied. */
export async function migrate(db: SqlDatabase, wings: readonly MigrationList[]): Promise<number[]> {
  const order = migrationOrder(wings);
  await db
    .query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    .catch(async (err) => {
      // Two replicas creating the table at once: the loser sees a unique violation; the table exists now.
      const exists = await db.query(`SELECT to_regclass('schema_migrations') AS t`);
      if (!exists[0]?.t) throw err;
    });
  const applied: number[] = [];
  for (const m of order) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (done.length > 0) return;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    });
  }
  return applied;
}
