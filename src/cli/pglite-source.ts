// Opens a PGlite-era database (DATA_DIR/db) for `bootsmith db export --pglite`, and nothing
// else: PGlite (PostgreSQL 17 compiled to WebAssembly, ~700 MiB resident) is loaded only inside
// this command. The embedded PostgreSQL 18 server cannot open that cluster (another major
// version, and no pg_upgrade among the packaged binaries), so the rows are read through PGlite.
// It works on a copy in a temporary directory: the original is never written.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SqlExecutor } from '../core/db/sql.js';

export async function openPgliteCopy(dir: string): Promise<SqlExecutor & { close(): Promise<void> }> {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-pglite-'));
  try {
    await cp(dir, copy, { recursive: true });
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(copy);
    return {
      query: async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params)).rows,
      exec: async (sql: string) => void (await db.exec(sql)),
      async close() {
        await db.close();
        await rm(copy, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(copy, { recursive: true, force: true });
    throw err;
  }
}
