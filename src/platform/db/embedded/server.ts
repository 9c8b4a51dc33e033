// The PostgreSQL server bootsmith starts and owns when DATABASE_URL is unset.
//
// Layout (DATA_DIR/postgres): `password` (generated, 0600), `data/` (the cluster, created by
// initdb on first start into `data.init/` and renamed, so a half-initialised cluster is never
// used), `run/` (the Unix socket; no TCP listener). When the socket path would exceed the
// kernel's limit, the server listens on 127.0.0.1 on a port chosen free instead.
// Start: finds a server left by a killed bootsmith through `postmaster.pid` (alive: stopped
// cleanly, fast shutdown; dead: the file is removed) and ends stray backends, then starts a
// child (its own process group) with small memory settings. While running: when the child
// dies, it is restarted with backoff; `state()` says whether it is up. Stop: fast shutdown,
// escalating to SIGQUIT/SIGKILL after bounded waits.
// As root, PostgreSQL (which refuses root) runs as runAsUser (Config: EMBEDDED_POSTGRES_USER), default `postgres`
// when that user exists, else `nobody`. The cluster on disk is ./cluster.ts, servers left
// behind are ./leftovers.ts. Does not open connections (../sql.ts does).
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { describeError } from '../../../errors.js';
import { findPostgresBinaries, type PostgresBinaries } from './binaries.js';
import {
  binariesRunnableBy,
  exists,
  explainServerLog,
  initCluster,
  layoutOf,
  loadPassword,
  type Owner,
  prepareHome,
  runAsIds,
} from './cluster.js';
import { EmbeddedPostgresError } from './errors.js';
import { clearLeftovers, endInitLeftovers, FAST_SHUTDOWN_TIMEOUT_MS, QUIT_TIMEOUT_MS } from './leftovers.js';

/** The kernel's sun_path is 108 bytes including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;
/** The port number only names the socket file (.s.PGSQL.<port>) when there is no TCP listener. */
const SOCKET_PORT = 5432;
/** Crash recovery after kill -9 replays WAL since the last checkpoint (small here). */
const START_TIMEOUT_MS = 60_000;
/** Restart backoff after the child died: doubles from the first to the last, then stays. */
const RESTART_BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000, 10_000] as const;
/** A server that ran this long before dying starts again from the shortest delay. */
const BACKOFF_RESET_AFTER_MS = 30_000;
/** Lines of the server's own log kept to explain a failed start. */
const LOG_TAIL_LINES = 20;

/**
 * Sized for bootsmith's workload (a few thousand hosts, one pool of ≤ 10 connections): the
 * defaults (128 MB shared buffers, 100 connections, PostgreSQL 18's 3 I/O workers) would
 * triple the resident memory of the process tree for nothing.
 */
export const SERVER_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  max_connections: '24',
  superuser_reserved_connections: '2',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
  wal_buffers: '1MB',
  max_wal_size: '256MB',
  min_wal_size: '32MB',
  io_method: 'sync',
  max_worker_processes: '2',
  max_parallel_workers: '0',
  max_parallel_workers_per_gather: '0',
  max_wal_senders: '0',
  wal_level: 'minimal',
  autovacuum_max_workers: '1',
  huge_pages: 'off',
  jit: 'off',
  lc_messages: 'C',
  log_destination: 'stderr',
  logging_collector: 'off',
  log_line_prefix: '',
  timezone: 'UTC',
  // durability stays PostgreSQL's default: fsync and synchronous_commit on
};

export type ServerState = 'starting' | 'running' | 'restarting' | 'stopped';

export interface ConnectionTarget {
  /** Socket directory, or 127.0.0.1 when the socket path is too long. */
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  via: 'socket' | 'tcp';
}

export interface EmbeddedServer {
  readonly home: string;
  readonly target: ConnectionTarget;
  state(): ServerState;
  /** PID of the running postmaster (undefined while restarting). */
  pid(): number | undefined;
  /** How many times the child died and was started again. */
  restarts(): number;
  stop(): Promise<void>;
}

export interface EmbeddedServerOptions {
  dataDir: string;
  logger: Logger;
  /** Config.embeddedPostgresUser (EMBEDDED_POSTGRES_USER; only used when running as root); default automatic. */
  runAsUser?: string;
  binaries?: PostgresBinaries;
}

export { layoutOf } from './cluster.js';

export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const logger = options.logger.child({ component: 'postgres' });
  const binaries = options.binaries ?? (await findPostgresBinaries());
  const layout = layoutOf(path.resolve(options.dataDir));
  const owner = runAsIds(options.runAsUser);
  if (owner)
    logger.info(
      { user: owner.name, uid: owner.uid },
      'bootsmith runs as root: the embedded PostgreSQL runs as an unprivileged user',
    );
  await prepareHome(layout, owner);
  const runnable = owner ? await binariesRunnableBy(binaries, owner, layout, logger) : binaries;
  const password = await loadPassword(layout.passwordFile);
  if (!(await exists(path.join(layout.data, 'PG_VERSION')))) {
    await endInitLeftovers(`${layout.data}.init`, logger);
    await initCluster(runnable, layout, owner, password, logger);
  }

  const socketPath = path.join(layout.run, `.s.PGSQL.${SOCKET_PORT}`);
  const useSocket = Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES;
  const port = useSocket ? SOCKET_PORT : await freeLoopbackPort();
  if (!useSocket)
    logger.info(
      { socketPath, port },
      'socket path too long for the kernel: embedded PostgreSQL listens on 127.0.0.1 instead',
    );
  const target: ConnectionTarget = {
    host: useSocket ? layout.run : '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    via: useSocket ? 'socket' : 'tcp',
  };
  const args = ['-D', layout.data, '-p', String(port)];
  const settings: Record<string, string> = {
    ...SERVER_SETTINGS,
    listen_addresses: useSocket ? '' : '127.0.0.1',
    unix_socket_directories: useSocket ? layout.run : '',
  };
  for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);

  let state: ServerState = 'starting';
  let child: ChildProcess | undefined;
  let restarts = 0;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;

  const launch = async (): Promise<void> => {
    await clearLeftovers(layout, logger);
    const started = Date.now();
    const c = await spawnServer(runnable, args, owner, logger);
    child = c;
    state = 'running';
    c.once('exit', (code, signal) => {
      if (child !== c) return;
      child = undefined;
      if (stopping) return;
      state = 'restarting';
      if (Date.now() - started > BACKOFF_RESET_AFTER_MS) attempt = 0;
      logger.error({ code, signal }, 'embedded PostgreSQL exited unexpectedly; restarting it');
      scheduleRestart();
    });
  };
  const scheduleRestart = (): void => {
    const delay = RESTART_BACKOFF_MS[Math.min(attempt, RESTART_BACKOFF_MS.length - 1)]!;
    attempt++;
    timer = setTimeout(() => {
      timer = undefined;
      if (stopping) return;
      launch().then(
        () => {
          restarts++;
          logger.warn({ restarts }, 'embedded PostgreSQL restarted');
        },
        (err: unknown) => {
          logger.error(
            {
              err: describeError(err),
              nextInMs: RESTART_BACKOFF_MS[Math.min(attempt, RESTART_BACKOFF_MS.length - 1)],
            },
            'embedded PostgreSQL failed to restart',
          );
          if (!stopping) scheduleRestart();
        },
      );
    }, delay);
  };

  await launch();
  logger.debug({ pid: child?.pid, via: target.via }, 'embedded PostgreSQL ready');

  return {
    home: layout.home,
    target,
    state: () => state,
    pid: () => child?.pid,
    restarts: () => restarts,
    stop() {
      stopping ??= (async () => {
        if (timer) clearTimeout(timer);
        const c = child;
        child = undefined;
        if (c) await stopChild(c);
        state = 'stopped';
      })();
      return stopping;
    },
  };
}
async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  for (const [signal, waitMs] of [
    ['SIGINT', FAST_SHUTDOWN_TIMEOUT_MS],
    ['SIGQUIT', QUIT_TIMEOUT_MS],
    ['SIGKILL', QUIT_TIMEOUT_MS],
  ] as const) {
    c.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (done) return;
  }
}
async function spawnServer(
  binaries: PostgresBinaries,
  args: string[],
  owner: Owner | undefined,
  logger: Logger,
): Promise<ChildProcess> {
  const child = spawn(binaries.postgres, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: a terminal's Ctrl-C reaches bootsmith, which stops it in order
    env: { ...process.env, LC_ALL: 'C' },
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
  });
  const tail: string[] = [];
  let ready = false;
  return new Promise<ChildProcess>((resolve, reject) => {
    const timeout = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new EmbeddedPostgresError(
          `embedded PostgreSQL did not become ready within ${START_TIMEOUT_MS} ms: ${tail.join(' | ')}`,
        ),
      );
    }, START_TIMEOUT_MS);
    const onLine = (line: string) => {
      if (!line) return;
      logger.debug({ pg: line }, 'postgres');
      tail.push(line);
      if (tail.length > LOG_TAIL_LINES) tail.shift();
      if (!ready && line.includes('database system is ready to accept connections')) {
        ready = true;
        clearTimeout(timeout);
        resolve(child);
      }
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffered = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const l of lines) onLine(l.trimEnd());
      });
    }
    child.once('error', (err) => {
      clearTimeout(timeout);
      reject(new EmbeddedPostgresError(`cannot run ${binaries.postgres}: ${err.message}`, {}, err));
    });
    child.once('exit', (code, signal) => {
      if (ready) return;
      clearTimeout(timeout);
      reject(
        new EmbeddedPostgresError(
          `embedded PostgreSQL exited during start (code ${code}, signal ${signal}): ${explainServerLog(tail)}`,
          { code, signal },
        ),
      );
    });
  });
}
async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
