// sql.ts on real connections: an unreachable DATABASE_URL is a DatabaseUnavailableError (the
// API's 503), SQL errors stay SQL errors, and only socket-level failures count as "down".
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { embeddedBackend } from '../test-support/harness.js';
import { DatabaseUnavailableError, isConnectionError, openDatabase } from './sql.js';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

test('an unreachable DATABASE_URL fails as DatabaseUnavailableError (503 + Retry-After), not a raw socket error', async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-sql-'));
  const db = await openDatabase({ dataDir, databaseUrl: `postgres://u:p@127.0.0.1:${await closedPort()}/x` });
  try {
    const err = await db.query('SELECT 1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as DatabaseUnavailableError).retryAfterSeconds).toBeGreaterThan(0);
    const inTx = await db.transaction(async (tx) => tx.query('SELECT 1')).catch((e: unknown) => e);
    expect(inTx).toBeInstanceOf(DatabaseUnavailableError);
  } finally {
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('SQL errors are not connection errors; a file ENOENT is not either', async () => {
  const storage = await embeddedBackend().create();
  const db = await openDatabase({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl! });
  try {
    await db.exec('CREATE TABLE u (k int PRIMARY KEY)');
    await db.query('INSERT INTO u VALUES (1)');
    const dup = await db.query('INSERT INTO u VALUES (1)').catch((e: unknown) => e);
    expect((dup as { code?: string }).code).toBe('23505');
    expect(dup).not.toBeInstanceOf(DatabaseUnavailableError);
  } finally {
    await db.close();
    await storage.cleanup();
  }
  expect(isConnectionError(Object.assign(new Error('x'), { code: 'ENOENT', syscall: 'open' }))).toBe(false);
  expect(isConnectionError(Object.assign(new Error('x'), { code: 'ENOENT', syscall: 'connect' }))).toBe(true);
  expect(isConnectionError(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
});
