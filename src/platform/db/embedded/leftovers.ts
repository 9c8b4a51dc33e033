// Servers left behind: a postmaster.pid whose postmaster is alive (a bootsmith was killed:
// stopped cleanly) or dead (the file is removed), PostgreSQL processes still running on the
// data directory, an initdb (and its bootstrap backends) still filling the staging directory of
// a first start that was killed, and a DATA_DIR whose server belongs to a running bootsmith (refused).
// Linux /proc only. Does not start servers.
import { readFile, readdir, readlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Layout } from './cluster.js';
import { EmbeddedPostgresError } from './errors.js';

/** A fast shutdown checkpoints; past this the server is told to quit, then killed. */
export const FAST_SHUTDOWN_TIMEOUT_MS = 15_000;
export const QUIT_TIMEOUT_MS = 5_000;

/**
 * A server left behind by a bootsmith that was killed: its postmaster.pid names a live
 * postmaster (stopped cleanly) or a dead one (the file is removed). Backends whose postmaster
 * is gone still pin the shared memory and would keep a new server from starting: they are
 * ended too (found by their working directory, which is the data directory).
 */
export async function clearLeftovers(layout: Layout, logger: Logger): Promise<void> {
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
      logger.warn(
        { pid },
        'found a running PostgreSQL left by a previous bootsmith: stopping it cleanly before starting ours',
      );
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
/**
 * A first start killed during initdb leaves initdb running (it is not killed with its parent),
 * still writing the staging directory: end it and the bootstrap backends it started (found by
 * `--pgdata=<staging>` on initdb's command line and by their working directory) before the
 * staging directory is removed and initdb runs again.
 */
export async function endInitLeftovers(staging: string, logger: Logger): Promise<void> {
  const strays = await processesIn(staging, `--pgdata=${staging}`);
  if (strays.length === 0) return;
  logger.warn({ pids: strays }, 'ending an initdb left by a first start that was killed');
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await waitFor(async () => (await processesIn(staging, `--pgdata=${staging}`)).length === 0, QUIT_TIMEOUT_MS);
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
/**
 * PIDs of processes whose working directory is `dir` (PostgreSQL's processes chdir to PGDATA),
 * or whose command line has the argument `argument`.
 */
async function processesIn(dir: string, argument?: string): Promise<number[]> {
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
    else if (
      argument &&
      (await readFile(`/proc/${e}/cmdline`, 'utf8').catch(() => '')).split('\0').includes(argument)
    ) {
      found.push(pid);
    }
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
  for (const [signal, waitMs] of [
    ['SIGINT', FAST_SHUTDOWN_TIMEOUT_MS],
    ['SIGQUIT', QUIT_TIMEOUT_MS],
    ['SIGKILL', QUIT_TIMEOUT_MS],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitFor(async () => !alive(pid), waitMs)) return;
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
