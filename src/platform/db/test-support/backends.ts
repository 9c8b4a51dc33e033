// Throwaway databases for tests: a fresh database per test on the run's one embedded PostgreSQL
// server (test/support/embedded-postgres-setup.ts), and on TEST_DATABASE_URL when it is set.
// Used only by *.test.ts files and test harnesses.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface Backend {
  name: string;
  /** Fresh storage for one test: a data directory and a database of its own, and their cleanup. */
  create(): Promise<{ dataDir: string; databaseUrl?: string; cleanup(): Promise<void> }>;
}

export function postgresBackend(url: string, name = 'postgres'): Backend {
  return {
    name,
    async create() {
      const pg = (await import('pg')).default;
      const dbName = `bootsmith_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      await admin.end();
      const u = new URL(url);
      u.pathname = `/${dbName}`; // the query (e.g. ?host=<socket dir>) is kept
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-core-pg-'));
      return {
        dataDir,
        databaseUrl: u.toString(),
        async cleanup() {
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
          await c.end();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** The run's embedded PostgreSQL server (started once by the unit suite's globalSetup). */
export function embeddedBackend(): Backend {
  const url = process.env.BOOTSMITH_TEST_EMBEDDED_URL;
  if (!url)
    throw new Error(
      'BOOTSMITH_TEST_EMBEDDED_URL is unset: run through vitest.config.ts (its globalSetup starts the server)',
    );
  return postgresBackend(url, 'embedded');
}

export function backends(): Backend[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [embeddedBackend(), postgresBackend(url)] : [embeddedBackend()];
}
