// The SQL connection every wing talks to (the platform's database: the core's and the BMC wing's
// tables in one schema): a PostgreSQL pool, on DATABASE_URL or on the embedded server bootsmith
// starts in DATA_DIR/postgres (./embedded/server.ts).
//
// One engine, one code path: the repositories, the migrations and the monitor's locks run the
// same SQL on both. Connection failures (server down, restarting, refusing, a connection lost
// mid-transaction) become a typed DatabaseUnavailableError; a request that waited its whole
// connection timeout for a pooled connection while every one was in use becomes a
// DatabaseBusyError (the database is up, bootsmith's pool is not keeping up). The API answers
// both with 503 + Retry-After and says which. Every connection checked out of the pool (one per
// transaction: the repository's, the migrations' and the monitor's advisory locks, the BMC job
// claims) has an 'error' listener until it is back in the pool, so a server that dies under it
// fails that transaction instead of the process. This module does not know any table; it only
// opens, runs and closes.
import type { Logger } from 'pino';
import pino from 'pino';
import { BootsmithError, UnavailableError } from '../../errors.js';
import { type EmbeddedServer, startEmbeddedServer } from './embedded/server.js';

export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDatabase extends SqlExecutor {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** The embedded server, when this database runs on one. */
  readonly embedded?: EmbeddedServer;
  close(): Promise<void>;
}

/** Connections of the pool: the embedded server allows 24, leaving room for `bootsmith db`. */
export const POOL_MAX = 10;
/** A connection attempt gives up after this long (the server is down or restarting). */
const CONNECT_TIMEOUT_MS = 5_000;
/** What a client is told to wait before trying again while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** What a client is told to wait before trying again when every pooled connection was busy. */
export const POOL_BUSY_RETRY_AFTER_SECONDS = 1;

export class DatabaseUnavailableError extends UnavailableError {
  /** `reason`: what the failure means, for people; `code`: the driver's code or message it came from. */
  constructor(reason: string, code?: string) {
    super(`database unavailable: ${reason}; retry shortly`, DATABASE_RETRY_AFTER_SECONDS, { reason, code });
  }
}

/** Every pooled connection stayed in use for the whole wait: bootsmith is busy, the database is not down. */
export class DatabaseBusyError extends UnavailableError {
  constructor(poolMax: number, waitedMs: number, waiting?: number) {
    super(
      `database busy: all ${poolMax} pooled connections stayed in use for ${waitedMs / 1000} s` +
        `${waiting === undefined ? '' : ` (${waiting} more requests waiting)`}; retry shortly`,
      POOL_BUSY_RETRY_AFTER_SECONDS,
      { poolMax, waitedMs, ...(waiting === undefined ? {} : { waiting }) },
    );
  }
}

/**
 * node-postgres's pool gave up waiting for a free connection (connectionTimeoutMillis while all
 * `max` were checked out). Its timeout for opening a new connection says "Connection terminated
 * due to connection timeout" instead: that one is the server not answering.
 */
export function isPoolWaitTimeout(err: unknown): boolean {
  return (err as { message?: unknown } | undefined)?.message === 'timeout exceeded when trying to connect';
}

/** SQLSTATE classes/codes and socket errors that mean "the server is not there right now". */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code.startsWith('08')) return true; // connection exception
  if (['57P01', '57P02', '57P03', '53300'].includes(code)) return true; // shutdown, crash, starting, too many connections
  const syscall = (err as { syscall?: unknown } | undefined)?.syscall;
  // socket errors only (a file's ENOENT is not the database being down)
  if (
    ['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code) &&
    ['connect', 'read', 'write'].includes(String(syscall))
  )
    return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)/i.test(
    message,
  );
}

/** The typed error for a database failure that means "not now" (503), else `err` as it is. */
export function translateDatabaseError(err: unknown, pool?: Pick<import('pg').Pool, 'waitingCount'>): unknown {
  if (err instanceof UnavailableError) return err;
  if (isPoolWaitTimeout(err)) return new DatabaseBusyError(POOL_MAX, CONNECT_TIMEOUT_MS, pool?.waitingCount);
  if (!isConnectionError(err)) return err;
  return new DatabaseUnavailableError(reasonOf(err), rawReasonOf(err) || undefined);
}

/** What a connection failure means, for the 503's message (the code or driver message it came from in brackets). */
const REASONS: readonly (readonly [RegExp, string])[] = [
  [/^57P01$/, 'the server is shutting down'],
  [/^57P02$/, 'the server is recovering from a crash'],
  [/^57P03$/, 'the server is starting up'],
  [/^53300$/, 'the server accepts no more connections'],
  [/^(ECONNREFUSED|ENOENT)$/, 'nothing listens at its address (down or restarting)'],
  [/^(ECONNRESET|EPIPE)$|^Connection terminated unexpectedly$|not queryable/, 'the connection to it was lost'],
  [/^(ETIMEDOUT|EHOSTUNREACH)$|connection timeout/, 'it does not answer'],
  [/^08/, 'the connection to it failed'],
];

function rawReasonOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  return (typeof e.code === 'string' && e.code) || (typeof e.message === 'string' && e.message) || '';
}

function reasonOf(err: unknown): string {
  const raw = rawReasonOf(err);
  const meaning = REASONS.find(([pattern]) => pattern.test(raw))?.[1];
  return meaning ? `${meaning} (${raw})` : raw || 'connection failed';
}

export async function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
  logger?: Logger;
  embeddedPostgresUser?: string | undefined;
}): Promise<SqlDatabase> {
  const pg = (await import('pg')).default;
  if (options.databaseUrl) {
    return poolDatabase(
      new pg.Pool({
        connectionString: options.databaseUrl,
        max: POOL_MAX,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      }),
    );
  }
  const server = await startEmbeddedServer({
    dataDir: options.dataDir,
    logger: options.logger ?? pino({ level: 'silent' }),
    runAsUser: options.embeddedPostgresUser,
  });
  const t = server.target;
  const pool = new pg.Pool({
    host: t.host,
    port: t.port,
    user: t.user,
    password: t.password,
    database: t.database,
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  return poolDatabase(pool, server);
}

function poolDatabase(pool: import('pg').Pool, embedded?: EmbeddedServer): SqlDatabase {
  // Idle connections: the pool drops one that fails and says so here; the next query opens another.
  pool.on('error', () => undefined);
  let closing: Promise<void> | undefined;
  const run = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw translateDatabaseError(err, pool);
    }
  };
  return {
    ...(embedded ? { embedded } : {}),
    // pool.query listens for its connection's errors itself while it holds it
    query: <T>(sql: string, params?: unknown[]) => run(async () => (await pool.query(sql, params)).rows as T[]),
    exec: (sql: string) => run(async () => void (await pool.query(sql))),
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) =>
      run(async () => {
        const client = await pool.connect();
        // Checked out, the connection has no listener of the pool's: without this one a server
        // that dies under it (kill -9, crash recovery, a network cut) emits an 'error' nobody
        // hears, and the process exits. The statement running fails with the error, the next
        // one with "not queryable"; either way the transaction fails and the connection is dropped.
        let lost: Error | undefined;
        const onError = (err: Error) => {
          lost ??= err;
        };
        client.on('error', onError);
        let broken = false;
        try {
          await client.query('BEGIN');
          const result = await fn({
            query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
            exec: async (sql: string) => void (await client.query(sql)),
          });
          await client.query('COMMIT');
          return result;
        } catch (err) {
          broken = lost !== undefined || isConnectionError(err);
          if (!broken) await client.query('ROLLBACK').catch(() => undefined);
          // the connection died under code that turned its failure into something else
          if (lost !== undefined && !(err instanceof BootsmithError))
            throw new DatabaseUnavailableError(reasonOf(lost));
          throw err;
        } finally {
          client.release(broken);
          client.off('error', onError);
        }
      }),
    close() {
      closing ??= (async () => {
        await pool.end();
        await embedded?.stop();
      })();
      return closing;
    },
  };
}
