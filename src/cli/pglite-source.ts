// Opens a PGlite-era database (DATA_DIR/db) for `bootsmith db export --pglite`, and nothing
// else: PGlite (PostgreSQL compiled to 32-bit WebAssembly, ~700 MiB resident) is loaded only
// inside this command. The embedded server cannot open that cluster even though both are
// PostgreSQL 18: tried, it refuses with "database files are incompatible with server ...
// initialized without USE_FLOAT8_BYVAL" (a 32-bit on-disk layout), so the rows are read
// through PGlite. It works on a copy in a temporary directory: the original is never written.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SqlExecutor } from '../platform/db/sql.js';

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
