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
// As root, PostgreSQL (which refuses root) runs as EMBEDDED_POSTGRES_USER, default `postgres`
// when that user exists, else `nobody`. Does not open connections for the core (sql.ts does).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, chown, cp, mkdir, readFile, readdir, readlink, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { findPostgresBinaries, type PostgresBinaries } from './binaries.js';
import { EmbeddedPostgresError, explainFsError } from './errors.js';

/** The kernel's sun_path is 108 bytes including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;
/** The port number only names the socket file (.s.PGSQL.<port>) when there is no TCP listener. */
const SOCKET_PORT = 5432;
/** initdb of an empty cluster takes ~1 s here; a slow disk gets far more before we give up. */
const INITDB_TIMEOUT_MS = 120_000;
/** Crash recovery after kill -9 replays WAL since the last checkpoint (small here). */
const START_TIMEOUT_MS = 60_000;
/** A fast shutdown checkpoints; past this the server is told to quit, then killed. */
const FAST_SHUTDOWN_TIMEOUT_MS = 15_000;
const QUIT_TIMEOUT_MS = 5_000;
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
  /** Overrides EMBEDDED_POSTGRES_USER (only used when running as root). */
  runAsUser?: string;
  binaries?: PostgresBinaries;
}

interface Layout {
  home: string;
  data: string;
  run: string;
  passwordFile: string;
}

export function layoutOf(dataDir: string): Layout {
  const home = path.join(dataDir, 'postgres');
  return { home, data: path.join(home, 'data'), run: path.join(home, 'run'), passwordFile: path.join(home, 'password') };
}

export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const logger = options.logger.child({ component: 'postgres' });
  const binaries = options.binaries ?? (await findPostgresBinaries());
  const layout = layoutOf(path.resolve(options.dataDir));
  const owner = runAsIds(options.runAsUser ?? process.env.EMBEDDED_POSTGRES_USER);
  await prepareHome(layout, owner);
  const runnable = owner ? await binariesRunnableBy(binaries, owner, layout, logger) : binaries;
  const password = await loadPassword(layout.passwordFile);
  if (!(await exists(path.join(layout.data, 'PG_VERSION')))) await initCluster(runnable, layout, owner, password, logger);

  const socketPath = path.join(layout.run, `.s.PGSQL.${SOCKET_PORT}`);
  const useSocket = Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES;
  const port = useSocket ? SOCKET_PORT : await freeLoopbackPort();
  if (!useSocket) logger.info({ socketPath, port }, 'socket path too long for the kernel: embedded PostgreSQL listens on 127.0.0.1 instead');
  const target: ConnectionTarget = {
    host: useSocket ? layout.run : '127.0.0.1', port, user: 'postgres', password, database: 'postgres', via: useSocket ? 'socket' : 'tcp',
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
          logger.error({ err: (err as Error).message, nextInMs: RESTART_BACKOFF_MS[Math.min(attempt, RESTART_BACKOFF_MS.length - 1)] }, 'embedded PostgreSQL failed to restart');
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

interface Owner {
  uid: number;
  gid: number;
  name: string;
}

/** Who PostgreSQL runs as: ourselves, or (as root, which PostgreSQL refuses) another user. */
function runAsIds(requested: string | undefined): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const candidates = requested ? [requested] : ['postgres', 'nobody'];
  for (const name of candidates) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      if (uid !== 0) return { uid, gid, name };
    } catch {
      // no such user: try the next one
    }
  }
  throw new EmbeddedPostgresError(
    `bootsmith runs as root and PostgreSQL refuses to: no unprivileged user to run it as (${candidates.join(', ')}); set EMBEDDED_POSTGRES_USER to an existing user, or run bootsmith as a non-root user`,
    { candidates },
  );
}

async function prepareHome(layout: Layout, owner: Owner | undefined): Promise<void> {
  try {
    const dataDir = path.dirname(layout.home);
    await mkdir(dataDir, { recursive: true });
    await access(dataDir, constants.W_OK); // EROFS/EACCES said plainly (a recursive mkdir would say ENOENT)
    await mkdir(layout.home, { recursive: true, mode: 0o711 });
    if (owner) await ensureTraversable(path.dirname(layout.home), owner);
    await access(layout.home, constants.W_OK);
    await mkdir(layout.run, { recursive: true, mode: 0o700 });
    if (owner) await chown(layout.run, owner.uid, owner.gid);
    await chmod(layout.run, 0o700);
  } catch (err) {
    throw explainFsError(err, `prepare the embedded PostgreSQL directory ${layout.home}`);
  }
}

/**
 * As root, PostgreSQL runs as another user, who must be able to reach DATA_DIR/postgres.
 * DATA_DIR itself is bootsmith's and gets search permission for others (x only: nothing in
 * it can be listed); a parent that does not allow it is reported, not changed.
 */
async function ensureTraversable(dataDir: string, owner: Owner): Promise<void> {
  const st = await stat(dataDir);
  if ((st.mode & 0o001) === 0 && st.uid !== owner.uid) await chmod(dataDir, (st.mode & 0o7777) | 0o001);
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const s = await stat(dir);
    const ok = s.uid === owner.uid ? (s.mode & 0o100) !== 0 : s.gid === owner.gid ? (s.mode & 0o010) !== 0 : (s.mode & 0o001) !== 0;
    if (!ok) {
      throw new EmbeddedPostgresError(
        `PostgreSQL runs as user ${owner.name} (bootsmith runs as root) and cannot reach ${dataDir}: ${dir} is not searchable by it; choose a DATA_DIR outside ${dir} or set EMBEDDED_POSTGRES_USER`,
        { dir, user: owner.name },
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

/**
 * As root, the binaries are executed as another user, who may not be able to reach
 * node_modules (a checkout under /root). Then the package's `native/` tree (binaries, libraries,
 * share/, found relative to each other) is copied once into DATA_DIR/postgres/native-<version>.
 */
async function binariesRunnableBy(binaries: PostgresBinaries, owner: Owner, layout: Layout, logger: Logger): Promise<PostgresBinaries> {
  const native = path.dirname(path.dirname(binaries.postgres));
  if (await searchableBy(path.dirname(binaries.postgres), owner)) return binaries;
  const copy = path.join(layout.home, `native-${binaries.version}`);
  const copied: PostgresBinaries = { ...binaries, initdb: path.join(copy, 'bin', 'initdb'), postgres: path.join(copy, 'bin', 'postgres') };
  if (await exists(copied.postgres)) return copied;
  logger.info({ from: native, to: copy, user: owner.name }, 'the PostgreSQL binaries are not reachable by the user PostgreSQL runs as: copying them into DATA_DIR');
  try {
    await rm(`${copy}.tmp`, { recursive: true, force: true });
    await cp(native, `${copy}.tmp`, { recursive: true, verbatimSymlinks: true });
    await rename(`${copy}.tmp`, copy);
  } catch (err) {
    await rm(`${copy}.tmp`, { recursive: true, force: true }).catch(() => undefined);
    throw explainFsError(err, `copy the PostgreSQL binaries into ${copy}`);
  }
  return copied;
}

/** Whether `dir` and every parent can be searched by `owner` (mode bits; root bypasses them, owner does not). */
async function searchableBy(dir: string, owner: Owner): Promise<boolean> {
  for (let d = dir; ; d = path.dirname(d)) {
    const s = await stat(d);
    const ok = s.uid === owner.uid ? (s.mode & 0o100) !== 0 : s.gid === owner.gid ? (s.mode & 0o010) !== 0 : (s.mode & 0o001) !== 0;
    if (!ok) return false;
    if (d === path.dirname(d)) return true;
  }
}

async function loadPassword(file: string): Promise<string> {
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw explainFsError(err, `read ${file}`);
  }
  const password = randomBytes(24).toString('base64url');
  try {
    await writeFile(`${file}.tmp`, `${password}\n`, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  } catch (err) {
    await rm(`${file}.tmp`, { force: true });
    throw explainFsError(err, `write ${file}`);
  }
  return password;
}

async function initCluster(binaries: PostgresBinaries, layout: Layout, owner: Owner | undefined, password: string, logger: Logger): Promise<void> {
  const staging = `${layout.data}.init`;
  const pwfile = path.join(layout.run, '.initdb-pw');
  try {
    await rm(staging, { recursive: true, force: true });
    if (await exists(layout.data)) {
      // a directory without PG_VERSION never held a started cluster: nothing committed is in it
      logger.warn({ dir: layout.data }, 'removing an incomplete PostgreSQL data directory');
      await rm(layout.data, { recursive: true, force: true });
    }
    await mkdir(staging, { mode: 0o700 });
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (owner) await Promise.all([chown(staging, owner.uid, owner.gid), chown(pwfile, owner.uid, owner.gid)]);
  } catch (err) {
    await rm(pwfile, { force: true });
    throw explainFsError(err, `create ${staging}`);
  }
  const started = Date.now();
  try {
    const out = await runToEnd(binaries.initdb, [
      `--pgdata=${staging}`, '--username=postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`,
      '--encoding=UTF8', '--locale=C', '--no-instructions',
    ], owner, INITDB_TIMEOUT_MS);
    if (out.code !== 0) {
      throw new EmbeddedPostgresError(`initdb failed for ${layout.data}: ${lastLines(out.output)}`, { code: out.code, signal: out.signal });
    }
    await rename(staging, layout.data);
  } catch (err) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    if (err instanceof EmbeddedPostgresError) throw err;
    throw explainFsError(err, `initialise ${layout.data}`);
  } finally {
    await rm(pwfile, { force: true }).catch(() => undefined);
  }
  logger.info({ dir: layout.data, ms: Date.now() - started }, 'embedded PostgreSQL cluster created');
}

/**
 * A server left behind by a bootsmith that was killed: its postmaster.pid names a live
 * postmaster (stopped cleanly) or a dead one (the file is removed). Backends whose postmaster
 * is gone still pin the shared memory and would keep a new server from starting: they are
 * ended too (found by their working directory, which is the data directory).
 */
async function clearLeftovers(layout: Layout, logger: Logger): Promise<void> {
  const pidFile = path.join(layout.data, 'postmaster.pid');
  let pid: number | undefined;
  try {
    pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  } catch {
    pid = undefined;
  }
  if (pid && Number.isInteger(pid) && pid > 0) {
    if (await isOurPostgres(pid, layout.data)) {
      const owner = await owningProcess(pid);
      if (owner) {
        throw new EmbeddedPostgresError(
          `DATA_DIR is in use: its PostgreSQL (pid ${pid}) belongs to a running process (pid ${owner}); stop that bootsmith first, or give this one another DATA_DIR`,
          { pid, owner },
        );
      }
      logger.warn({ pid }, 'found a running PostgreSQL left by a previous bootsmith: stopping it cleanly before starting ours');
      await stopPid(pid);
    } else {
      logger.info({ pid }, 'removing a stale postmaster.pid (that server is gone)');
    }
    await unlink(pidFile).catch(() => undefined);
  }
  for (const stray of await processesIn(layout.data)) {
    logger.warn({ pid: stray }, 'ending a PostgreSQL process left by a server that died');
    try {
      process.kill(stray, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await waitFor(async () => (await processesIn(layout.data)).length === 0, QUIT_TIMEOUT_MS);
}

async function isOurPostgres(pid: number, dataDir: string): Promise<boolean> {
  try {
    const cmd = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return /postgres/.test(cmd[0] ?? '') && (await readlink(`/proc/${pid}/cwd`).catch(() => '')) === dataDir;
  } catch {
    return false;
  }
}

/**
 * The live Node.js process (a running bootsmith) whose child the postmaster is, if any. A
 * postmaster left by a killed bootsmith has been re-parented to init or a subreaper.
 */
async function owningProcess(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const ppid = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    if (ppid <= 1) return undefined;
    const exe = await readlink(`/proc/${ppid}/exe`).catch(() => '');
    return /node/.test(path.basename(exe)) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** PIDs of processes whose working directory is `dir` (PostgreSQL's processes chdir to PGDATA). */
async function processesIn(dir: string): Promise<number[]> {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return found;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if (pid === process.pid) continue;
    if ((await readlink(`/proc/${e}/cwd`).catch(() => '')) === dir) found.push(pid);
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function stopPid(pid: number): Promise<void> {
  for (const [signal, waitMs] of [['SIGINT', FAST_SHUTDOWN_TIMEOUT_MS], ['SIGQUIT', QUIT_TIMEOUT_MS], ['SIGKILL', QUIT_TIMEOUT_MS]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitFor(async () => !alive(pid), waitMs)) return;
  }
}

async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  for (const [signal, waitMs] of [['SIGINT', FAST_SHUTDOWN_TIMEOUT_MS], ['SIGQUIT', QUIT_TIMEOUT_MS], ['SIGKILL', QUIT_TIMEOUT_MS]] as const) {
    c.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), waitMs)))]);
    clearTimeout(timer);
    if (done) return;
  }
}

async function spawnServer(binaries: PostgresBinaries, args: string[], owner: Owner | undefined, logger: Logger): Promise<ChildProcess> {
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
      reject(new EmbeddedPostgresError(`embedded PostgreSQL did not become ready within ${START_TIMEOUT_MS} ms: ${tail.join(' | ')}`));
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
      reject(new EmbeddedPostgresError(`embedded PostgreSQL exited during start (code ${code}, signal ${signal}): ${explainServerLog(tail)}`, { code, signal }));
    });
  });
}

/** The server's own reason, with a plain-words prefix for the failures operators meet most. */
function explainServerLog(tail: string[]): string {
  const text = tail.join(' | ');
  if (/No space left on device/i.test(text)) return `no space left in DATA_DIR: ${text}`;
  if (/Read-only file system/i.test(text)) return `DATA_DIR is read-only: ${text}`;
  if (/Permission denied/i.test(text)) return `permission denied in DATA_DIR: ${text}`;
  return text;
}

function runToEnd(file: string, args: string[], owner: Owner | undefined, timeoutMs: number): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' }, ...(owner ? { uid: owner.uid, gid: owner.gid } : {}) });
    let output = '';
    const take = (b: Buffer) => {
      output = (output + b.toString('utf8')).slice(-8_192);
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

function lastLines(output: string): string {
  return explainServerLog(output.trim().split('\n').slice(-5));
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

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await delay(50);
  }
}
