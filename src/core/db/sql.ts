// The SQL connection the core talks to: a PostgreSQL pool, on DATABASE_URL or on the
// embedded server bootsmith starts in DATA_DIR/postgres (./embedded/server.ts).
//
// One engine, one code path: the repository, the migrations and the monitor's locks run the
// same SQL on both. Connection failures (server down, restarting, refusing) become a typed
// DatabaseUnavailableError, which the API answers with 503 + Retry-After. This module does
// not know any table; it only opens, runs and closes.
import type { Logger } from 'pino';
import pino from 'pino';
import { UnavailableError } from '../../errors.js';
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

export class DatabaseUnavailableError extends UnavailableError {
  constructor(reason: string) {
    super(`database unavailable (${reason}); retry shortly`, DATABASE_RETRY_AFTER_SECONDS, { reason });
  }
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
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)/i.test(
    message,
  );
}

function translate(err: unknown): unknown {
  if (err instanceof UnavailableError || !isConnectionError(err)) return err;
  const e = err as { code?: string; message?: string };
  return new DatabaseUnavailableError(e.code || e.message || 'connection failed');
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
  pool.on('error', () => undefined); // idle client errors surface on the next query
  let closing: Promise<void> | undefined;
  const run = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw translate(err);
    }
  };
  return {
    ...(embedded ? { embedded } : {}),
    query: <T>(sql: string, params?: unknown[]) => run(async () => (await pool.query(sql, params)).rows as T[]),
    exec: (sql: string) => run(async () => void (await pool.query(sql))),
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) =>
      run(async () => {
        const client = await pool.connect();
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
          broken = isConnectionError(err);
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        } finally {
          client.release(broken);
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
