// The process's open-file limit, and the connection cap derived from it.
//
// Node has no setrlimit, so raising the soft limit to the hard limit runs util-linux's
// `prlimit --pid <pid> --nofile=<hard>:<hard>`; without prlimit (or without permission) the
// limit stays as it is and that is reported, never fatal. Limits are read from /proc/<pid>/limits.
// It does not listen or close anything: the cap is enforced by connection-guard.ts.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** File descriptors kept out of the connection cap: base image files, downloads, the database, logs, child processes. */
export const FD_RESERVE_MIN = 256;
/** ... or this share of the limit when that is larger (big limits leave proportionally more room). */
export const FD_RESERVE_FRACTION = 0.25;
/** A cap below this would make the service useless; with a limit that low it is used anyway. */
export const MIN_CONNECTION_CAP = 16;
/** Past this one process should be scaled out rather than hold more sockets. */
export const MAX_CONNECTION_CAP = 65_536;
/** prlimit is local and instant; it still must not hold up start-up. */
const PRLIMIT_TIMEOUT_MS = 5_000;

export interface OpenFileLimit {
  soft: number;
  hard: number;
}

export interface RaiseResult {
  before: OpenFileLimit | undefined;
  after: OpenFileLimit | undefined;
  /** Why the soft limit was not raised, when it was below the hard limit and stayed there. */
  problem?: string;
}

/** `Max open files` of /proc/<pid>/limits; undefined where /proc is unavailable. */
export async function readOpenFileLimit(pid: number | 'self' = 'self'): Promise<OpenFileLimit | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/limits`, 'utf8');
  } catch {
    return undefined;
  }
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!m) return undefined;
  const value = (s: string) => (s === 'unlimited' ? Number.POSITIVE_INFINITY : Number(s));
  return { soft: value(m[1]!), hard: value(m[2]!) };
}

/** Raises the soft open-file limit of `pid` to its hard limit where allowed. Never throws. */
export async function raiseOpenFileLimit(pid: number = process.pid): Promise<RaiseResult> {
  const before = await readOpenFileLimit(pid);
  if (!before || before.soft >= before.hard) return { before, after: before };
  const target = Number.isFinite(before.hard) ? String(before.hard) : 'unlimited';
  const problem = await new Promise<string | undefined>((resolve) => {
    execFile(
      'prlimit',
      ['--pid', String(pid), `--nofile=${target}:${target}`],
      { timeout: PRLIMIT_TIMEOUT_MS },
      (err, _out, stderr) => {
        if (!err) resolve(undefined);
        else if ((err as NodeJS.ErrnoException).code === 'ENOENT') resolve('prlimit (util-linux) is not installed');
        else resolve(`prlimit failed: ${(stderr || err.message).trim().slice(0, 200)}`);
      },
    );
  });
  const after = await readOpenFileLimit(pid);
  return { before, after, ...(problem ? { problem } : {}) };
}

/** Connections one process may hold with this soft open-file limit, leaving a reserve for files. */
export function connectionCapFor(softLimit: number | undefined): number {
  if (softLimit === undefined || !Number.isFinite(softLimit)) return MAX_CONNECTION_CAP;
  const reserve = Math.max(FD_RESERVE_MIN, Math.ceil(softLimit * FD_RESERVE_FRACTION));
  return Math.min(MAX_CONNECTION_CAP, Math.max(MIN_CONNECTION_CAP, softLimit - reserve));
}
