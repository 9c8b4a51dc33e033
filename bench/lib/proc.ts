// Child processes of the benchmark: spawning with output captured to a log, waiting for
// exit, stopping by pid (or by the process group the bench created), and the bookkeeping
// that stops everything this run started when it ends or is interrupted.
//
// Also reads per-process CPU time and memory from /proc. Never signals a process the bench
// did not start itself.
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on every Linux we run on). */
const CLOCK_TICKS = 100;

const running = new Set<Started>();

export interface Started {
  name: string;
  child: ChildProcess;
  pid: number;
  /** True when spawned as its own process group (stop() signals the whole group). */
  group: boolean;
  exited: Promise<number | null>;
  /** Captured stdout (when `capture` was asked for). */
  stdout(): string;
  stderr(): string;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Append stdout and stderr to this file. */
  log?: string;
  /** Keep stdout/stderr in memory (for short-lived tools). */
  capture?: boolean;
  /** Start as a new process group, so that stop() also reaches its children. */
  group?: boolean;
}

export function start(name: string, command: string, args: readonly string[], options: StartOptions = {}): Started {
  const spawnOptions: SpawnOptions = {
    env: options.env ?? process.env,
    cwd: options.cwd,
    detached: options.group ?? false,
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  const child = spawn(command, args, spawnOptions);
  if (child.pid === undefined) throw new Error(`starting ${name} (${command}): no pid`);
  let out = '';
  let err = '';
  const log = options.log ? createWriteStream(options.log, { flags: 'a' }) : undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (options.capture) out += chunk.toString();
    log?.write(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (options.capture) err += chunk.toString();
    log?.write(chunk);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (e) => {
      err += String(e);
      resolve(-1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null)));
  });
  const started: Started = {
    name,
    child,
    pid: child.pid,
    group: options.group ?? false,
    exited,
    stdout: () => out,
    stderr: () => err,
  };
  running.add(started);
  void exited.then(() => {
    running.delete(started);
    log?.end();
  });
  return started;
}

/** Runs a command to completion; rejects on a non-zero exit unless `allowFail`. */
export async function run(
  command: string,
  args: readonly string[],
  options: StartOptions & { allowFail?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = start(command, command, args, { ...options, capture: true });
  const code = await p.exited;
  if (code !== 0 && !options.allowFail) {
    throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${p.stderr().trim().slice(-2000)}`);
  }
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

function signal(p: Started, sig: NodeJS.Signals): void {
  try {
    if (p.group) process.kill(-p.pid, sig);
    else process.kill(p.pid, sig);
  } catch {
    // already gone
  }
}

/** Sends `sig`, waits up to `graceMs`, then SIGKILL. */
export async function stop(p: Started, sig: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (!running.has(p)) return;
  signal(p, sig);
  const timer = setTimeout(() => signal(p, 'SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
  if (p.group) signal(p, 'SIGKILL'); // stragglers of the group
}

/** Stops every process this run started and has not stopped yet. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => stop(p, 'SIGTERM', 3000)));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** user + system CPU seconds of one process so far (0 when it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime is field 14, stime field 15
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Values in KiB from /proc/<pid>/status (VmRSS, VmHWM, ...); undefined when gone. */
export function memoryStatus(pid: number): { rssKiB: number; hwmKiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM') };
  } catch {
    return undefined;
  }
}

/**
 * Resident KiB of `pid`'s mappings of ISO files (RSS and PSS, from /proc/<pid>/smaps): bootsmith's
 * `auto` body path maps each base ISO read-only and the kernel copies from it, so the page cache's
 * pages of the ISO show in its RSS (RssFile) although they are the same shared, reclaimable pages
 * a read() or nginx's sendfile uses and counts nowhere. The memory workload leaves them out.
 */
export function isoMappingKiB(pid: number): { rssKiB: number; pssKiB: number } {
  let rssKiB = 0;
  let pssKiB = 0;
  try {
    let iso = false;
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) iso = /\.iso( \(deleted\))?$/.test(line);
      else if (iso && line.startsWith('Rss:')) rssKiB += Number(/(\d+) kB/.exec(line)?.[1] ?? 0);
      else if (iso && line.startsWith('Pss:')) pssKiB += Number(/(\d+) kB/.exec(line)?.[1] ?? 0);
    }
  } catch {
    // gone
  }
  return { rssKiB, pssKiB };
}

/** Resets VmHWM to the current RSS (Linux clear_refs "5"); false when not permitted. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Pids whose parent is `ppid` (e.g. nginx workers of a master). */
export function childPids(ppid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === ppid) pids.push(Number(entry));
    } catch {
      // raced with an exit
    }
  }
  return pids;
}

/** Busy and total CPU seconds of the whole machine so far (from /proc/stat). */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / CLOCK_TICKS, total: total / CLOCK_TICKS };
}

/** Parses bash's `times` output: the second line is the children's user and system time. */
export function parseBashTimes(text: string): number | undefined {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => /^\d+m[\d.]+s \d+m[\d.]+s$/.test(l.trim()));
  const children = lines[lines.length - 1];
  if (!children || lines.length < 2) return undefined;
  let total = 0;
  for (const part of children.trim().split(' ')) {
    const m = /^(\d+)m([\d.]+)s$/.exec(part);
    if (m) total += Number(m[1]) * 60 + Number(m[2]);
  }
  return total;
}

/** `pid` and every process below it (bootsmith and its embedded PostgreSQL's processes). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // raced with an exit
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

/**
 * Memory of a process tree in KiB: summed RSS (counts pages shared between the processes once
 * per process: PostgreSQL's shared buffers and libraries, an overestimate) and summed PSS
 * (each shared page divided among its sharers: what the tree really costs).
 */
export function treeMemory(pid: number): { rssKiB: number; pssKiB: number; processes: number } {
  let rssKiB = 0;
  let pssKiB = 0;
  let processes = 0;
  for (const p of processTree(pid)) {
    try {
      const rollup = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
      rssKiB += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      pssKiB += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      processes++;
    } catch {
      // gone
    }
  }
  return { rssKiB, pssKiB, processes };
}

/**
 * CPU seconds of `pid` and every process below it, at nanosecond resolution: the time on CPU of
 * each live thread (/proc/<pid>/task/<tid>/schedstat, updated when a thread is switched out: read
 * it while the processes idle), plus the children each process reaped (cutime + cstime, in clock
 * ticks: PostgreSQL's short-lived backends). For work too small for /proc/<pid>/stat's 10 ms ticks.
 */
export function treeCpuSeconds(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      for (const tid of readdirSync(`/proc/${p}/task`))
        total += Number(readFileSync(`/proc/${p}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[13]) + Number(f[14])) / CLOCK_TICKS;
    } catch {
      // raced with an exit
    }
  }
  return total;
}
