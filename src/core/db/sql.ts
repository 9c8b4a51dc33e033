// The SQL connection the core talks to: embedded PGlite or a PostgreSQL pool.
//
// Both implement the same two-method interface (query + transaction) so the
// repository and the migrations are written once. This module does not know
// any table; it only opens, runs and closes.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDatabase extends SqlExecutor {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openDatabase(options: { databaseUrl?: string; dataDir: string }): Promise<SqlDatabase> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openPglite(path.join(options.dataDir, 'db'));
}

async function openPglite(dir: string): Promise<SqlDatabase> {
  await mkdir(dir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  // A small buffer pool: the embedded database is small, and PGlite's default pool adds
  // ~100 MiB of resident memory (measured) to an otherwise ~700 MiB WASM runtime.
  const db = await PGlite.create(dir, { postgresqlconf: 'shared_buffers=16MB' });
  // PGlite is one connection: serialise transactions so statements of two requests never interleave.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };
  return {
    kind: 'pglite',
    query: <T>(sql: string, params?: unknown[]) =>
      serial(async () => (await db.query<T>(sql, params)).rows),
    exec: (sql: string) => serial(async () => void (await db.exec(sql))),
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) =>
      serial(() =>
        db.transaction(async (tx) =>
          fn({
            query: async <R>(sql: string, params?: unknown[]) => (await tx.query<R>(sql, params)).rows,
            exec: async (sql: string) => void (await tx.exec(sql)),
          }),
        ),
      ),
    close: () => serial(() => db.close()),
  };
}

async function openPostgres(url: string): Promise<SqlDatabase> {
  const pg = await import('pg');
  const Pool = pg.default.Pool;
  const pool = new Pool({ connectionString: url, max: 10 });
  pool.on('error', () => undefined); // idle client errors surface on the next query
  return {
    kind: 'postgres',
    query: async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows as T[],
    exec: async (sql: string) => void (await pool.query(sql)),
    transaction: async <T>(fn: (tx: SqlExecutor) => Promise<T>) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
          exec: async (sql: string) => void (await client.query(sql)),
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
