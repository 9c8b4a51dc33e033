// Vitest globalSetup of the unit suite: one embedded PostgreSQL server for the whole run
// (initdb once, not per test), in a temporary DATA_DIR removed afterwards. Test files reach it
// through BOOTSMITH_TEST_EMBEDDED_URL (a connection string over its Unix socket) and create a
// fresh database per test (src/platform/db/test-support/backends.ts). Does not start anything else.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startEmbeddedServer } from '../../src/platform/db/embedded/server.js';

export const EMBEDDED_URL_ENV = 'BOOTSMITH_TEST_EMBEDDED_URL';

export default async function setup(): Promise<() => Promise<void>> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-test-pg-'));
  const server = await startEmbeddedServer({ dataDir, logger: pino({ level: 'silent' }) });
  const t = server.target;
  const auth = `${encodeURIComponent(t.user)}:${encodeURIComponent(t.password)}`;
  process.env[EMBEDDED_URL_ENV] =
    t.via === 'socket'
      ? `postgres://${auth}@localhost/${t.database}?host=${encodeURIComponent(t.host)}`
      : `postgres://${auth}@${t.host}:${t.port}/${t.database}`;
  return async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
