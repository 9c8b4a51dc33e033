// The one database as a process that serves it starts it: opened (./sql.ts: DATABASE_URL, or the
// embedded server in DATA_DIR) and brought up to date with the wings' migrations
// (./migration-runner.ts); closed again when the migrations fail, so a refused start leaves no
// server running. The caller owns the database from then on and closes it after every wing
// that uses it.
// Does NOT: choose the wings (src/service-database.ts lists them), or retry.
import { migrate, type MigrationList } from './migration-runner.js';
import { openDatabase, type SqlDatabase } from './sql.js';

export async function openMigratedDatabase(
  options: Parameters<typeof openDatabase>[0],
  wings: readonly MigrationList[],
): Promise<SqlDatabase> {
  const db = await openDatabase(options);
  try {
    await migrate(db, wings);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}
