// The machine the benchmark runs on: the Debian packages it needs (installed when missing,
// as root), a description for the results file, and how busy the machine is with work that
// is not ours (other test suites share it), measured while the bench itself is idle.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { machineCpu, run, sleep } from './proc.js';

/** Executables the bench needs and the Debian packages that provide them. */
const NEEDED: ReadonlyArray<{ binary: string; paths: string[]; pkg: string }> = [
  { binary: 'nginx', paths: ['/usr/sbin/nginx', '/usr/bin/nginx'], pkg: 'nginx-light' },
  { binary: 'wrk', paths: ['/usr/bin/wrk'], pkg: 'wrk' },
  { binary: 'curl', paths: ['/usr/bin/curl'], pkg: 'curl' },
  { binary: 'xorriso', paths: ['/usr/bin/xorriso'], pkg: 'xorriso' },
  { binary: 'fallocate', paths: ['/usr/bin/fallocate', '/bin/fallocate'], pkg: 'util-linux' },
];

export interface Tools {
  nginx: string;
  wrk: string;
  curl: string;
}

function which(paths: readonly string[]): string | undefined {
  return paths.find((p) => existsSync(p));
}

/** Finds the tools, installing the missing Debian packages with apt-get when running as root. */
export async function ensureTools(log: (line: string) => void): Promise<Tools> {
  const missing = NEEDED.filter((n) => !which(n.paths));
  if (missing.length > 0) {
    const pkgs = [...new Set(missing.map((m) => m.pkg))];
    if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
      throw new Error(
        `missing ${missing.map((m) => m.binary).join(', ')}: install the Debian packages ${pkgs.join(' ')} (apt-get needs root)`,
      );
    }
    log(`installing ${pkgs.join(' ')} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await run('apt-get', ['update', '-qq'], { env });
    await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { env });
    // Debian starts the packaged nginx on install; the bench never uses it and leaves it alone.
  }
  const found = (binary: string) => {
    const entry = NEEDED.find((n) => n.binary === binary)!;
    const p = which(entry.paths);
    if (!p) throw new Error(`${binary} is still missing after installing ${entry.pkg}`);
    return p;
  };
  return { nginx: found('nginx'), wrk: found('wrk'), curl: found('curl') };
}

export interface MachineInfo {
  hostname: string;
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  nginx: string;
  wrk: string;
  curl: string;
  virtualized: string | undefined;
  git: { commit: string; dirtyFiles: number } | undefined;
}

export async function machineInfo(tools: Tools, repoRoot: string): Promise<MachineInfo> {
  const version = async (cmd: string, args: string[], re: RegExp) => {
    const r = await run(cmd, args, { allowFail: true });
    return re.exec(r.stdout + r.stderr)?.[1] ?? 'unknown';
  };
  let git: MachineInfo['git'];
  const head = await run('git', ['-C', repoRoot, 'rev-parse', 'HEAD'], { allowFail: true });
  if (head.code === 0) {
    const status = await run('git', ['-C', repoRoot, 'status', '--porcelain', '--', 'src'], { allowFail: true });
    git = { commit: head.stdout.trim(), dirtyFiles: status.stdout.split('\n').filter((l) => l.trim()).length };
  }
  let virtualized: string | undefined;
  try {
    virtualized = /^flags.*\bhypervisor\b/m.test(readFileSync('/proc/cpuinfo', 'utf8')) ? 'hypervisor' : undefined;
  } catch {
    virtualized = undefined;
  }
  return {
    hostname: os.hostname(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: os.release(),
    node: process.version,
    nginx: await version(tools.nginx, ['-v'], /nginx\/(\S+)/),
    wrk: await version(tools.wrk, ['--version'], /wrk (\S+)/),
    curl: await version(tools.curl, ['--version'], /curl (\S+)/),
    virtualized,
    git,
  };
}

export interface Background {
  /** Fraction of the whole machine (all cores) busy while the bench was idle. */
  busyFraction: number;
  loadAverage1m: number;
}

/** How busy the machine is with other work, sampled over `ms` while the bench does nothing. */
export async function backgroundLoad(ms = 1000): Promise<Background> {
  const a = machineCpu();
  await sleep(ms);
  const b = machineCpu();
  const total = b.total - a.total;
  return {
    busyFraction: total > 0 ? round((b.busy - a.busy) / total, 3) : 0,
    loadAverage1m: round(os.loadavg()[0] ?? 0, 2),
  };
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
