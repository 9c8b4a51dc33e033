// sql.ts on real connections: an unreachable DATABASE_URL is a DatabaseUnavailableError (the
// API's 503), SQL errors stay SQL errors, and only socket-level failures count as "down"; a
// connection that dies while a transaction holds it fails that transaction (503), not the
// process; a pool whose every connection stays busy is a DatabaseBusyError (503 "database busy").
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { embeddedBackend } from './test-support/backends.js';
import { errorStatus } from '../../error-status.js';
import {
  DatabaseBusyError,
  DatabaseUnavailableError,
  isConnectionError,
  openDatabase,
  POOL_MAX,
  type SqlDatabase,
} from './sql.js';

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

/** A fresh database of the run's PostgreSQL, opened through sql.ts; closed and dropped after `fn`. */
async function withDatabase(fn: (db: SqlDatabase) => Promise<void>): Promise<void> {
  const storage = await embeddedBackend().create();
  const db = await openDatabase({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl! });
  try {
    await fn(db);
  } finally {
    await db.close();
    await storage.cleanup();
  }
}

test('a connection that dies while a transaction holds it fails that transaction with a 503, not the process (issue 37)', async () => {
  await withDatabase(async (db) => {
    let backend!: (pid: number) => void;
    const pid = new Promise<number>((resolve) => (backend = resolve));
    let go!: () => void;
    const resume = new Promise<void>((resolve) => (go = resolve));
    const tx = db.transaction(async (t) => {
      const [row] = await t.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      backend(row!.pid);
      await resume; // the transaction holds its connection, no statement running, as a handler between two queries
      await t.query('SELECT 1');
    });
    const failed = tx.catch((err: unknown) => err);
    // the server ends that connection (as kill -9 or crash recovery would): its client hears 'error'
    const victim = await pid;
    await db.query('SELECT pg_terminate_backend($1)', [victim]);
    while ((await db.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [victim])).length > 0)
      await new Promise((r) => setTimeout(r, 20));
    go();
    const err = await failed;
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(errorStatus(err)).toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
    expect((err as Error).message).toMatch(
      /^database unavailable: the (server is shutting down|connection to it was lost)/,
    );
    // the broken connection left the pool: the next transaction gets a working one
    expect(await db.transaction((t) => t.query<{ n: number }>('SELECT 1 AS n'))).toEqual([{ n: 1 }]);
  });
});

test('a pool whose every connection stays busy answers "database busy" (503), not "database unavailable" (issue 37)', async () => {
  await withDatabase(async (db) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const holders = Array.from({ length: POOL_MAX }, () =>
      db.transaction(async (t) => {
        await t.query('SELECT 1');
        started++;
        await held;
      }),
    );
    while (started < POOL_MAX) await new Promise((r) => setTimeout(r, 20));
    // both ways in wait for a connection until the pool's connect timeout, then give up
    const [inTx, plain] = await Promise.all([
      db.transaction((t) => t.query('SELECT 1')).catch((e: unknown) => e),
      db.query('SELECT 1').catch((e: unknown) => e),
    ]);
    release();
    await Promise.all(holders);
    for (const err of [inTx, plain]) {
      expect(err).toBeInstanceOf(DatabaseBusyError);
      expect(err).not.toBeInstanceOf(DatabaseUnavailableError);
      expect(errorStatus(err)).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
      expect((err as Error).message).toMatch(
        new RegExp(`^database busy: all ${POOL_MAX} pooled connections stayed in use for 5 s`),
      );
    }
    expect(await db.query<{ n: number }>('SELECT 1 AS n')).toEqual([{ n: 1 }]);
  });
});
