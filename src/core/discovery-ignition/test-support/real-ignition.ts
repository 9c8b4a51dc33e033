// Debian's real Ignition (package `ignition` 2.14) as every test runs it: `ignition-validate` on a
// config, the Ignition binary's `fetch-offline` stage (which merges child configs the way a booting
// host does) and its `files` stage into a scratch root seeded as the bootable fixture's guest seeds
// its live root (fixtures/lib/live-root.sh: passwd/group/shadow for useradd, SELinux's targeted
// file_contexts for the real `setfiles` Debian's Ignition relabels with). The unit tier, the fuzz
// campaign, fixtures/guest and the boot tests use this one module, so "Ignition applied it" means
// the same everywhere; applied-tree.ts reads and judges what a run wrote.
//
// Does: run each tool as a bounded child process (asynchronously, so callers run several at once),
// in a scratch directory, with nothing written outside it; report exit statuses and logs.
// Does not: judge the results (applied-tree.ts and the tests do), run the disks stage or fetch
// anything remote (configs with remote sources are not applied here).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../../../test/support/probes.js';
import { toolWorks } from '../../../../test/support/requirements.js';
import { readTree, type TreeEntry } from './applied-tree.js';

/** Debian's Ignition binary (the copy its dracut module installs as /usr/bin/ignition); IGNITION_BINARY overrides. */
export const IGNITION_BINARY = process.env.IGNITION_BINARY || '/usr/lib/dracut/modules.d/30ignition/ignition';
export const LIVE_ROOT_LIB = path.join(REPO_ROOT, 'fixtures', 'lib', 'live-root.sh');
/** One stage or validation of a config of a few MiB takes well under a second; this only bounds a hang. */
const RUN_TIMEOUT_MS = 60_000;
/** Logs kept per run: Ignition's log of a large config is a few hundred KiB. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** `Ignition Debian 2.14.0+ds1-1+b6`, or undefined when the binary does not run here. */
export function ignitionVersion(): string | undefined {
  if (!existsSync(IGNITION_BINARY)) return undefined;
  const r = spawnSync(IGNITION_BINARY, ['-version'], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
  return r.status === 0 ? `${r.stdout}${r.stderr}`.trim() : undefined;
}

/** The Ignition binary runs here (enough for `fetch-offline`). */
export const HAVE_IGNITION = ignitionVersion() !== undefined;
export const HAVE_IGNITION_VALIDATE = toolWorks('ignition-validate', ['--version']);
const HAVE_SETFILES = spawnSync('sh', ['-c', 'command -v setfiles'], { stdio: 'ignore' }).status === 0;
/**
 * The `files` stage can run here: the binary, root (useradd --root and chown need it) and SELinux's
 * `setfiles` (policycoreutils), which Debian's Ignition always runs on what it wrote.
 */
export const CAN_APPLY_IGNITION = HAVE_IGNITION && process.getuid?.() === 0 && HAVE_SETFILES;

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` with a clock; never throws for a failing or killed child. */
function run(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = 0;
    const keep = (into: Buffer[]) => (chunk: Buffer) => {
      if (kept >= MAX_OUTPUT_BYTES) return;
      kept += chunk.length;
      into.push(chunk);
    };
    child.stdout.on('data', keep(out));
    child.stderr.on('data', keep(err));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    let note = '';
    child.on('error', (e) => {
      note = `\n${command}: ${e.message}`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal) note += `\n${command}: killed by ${signal} (ran over ${RUN_TIMEOUT_MS} ms?)`;
      resolve({
        status: code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8') + note,
      });
    });
  });
}

const scratch = (prefix: string): Promise<string> => mkdtemp(path.join(tmpdir(), `bootsmith-${prefix}-`));

export interface ValidateResult {
  /** ignition-validate exited 0 (warnings alone do not fail it). */
  ok: boolean;
  /** Its whole report. */
  report: string;
  /** `error at $.path, line L col C: …` lines. */
  errors: string[];
  /** `warning at $.path, line L col C: …` lines. */
  warnings: string[];
}

export async function ignitionValidate(config: string | Buffer): Promise<ValidateResult> {
  const dir = await scratch('ign-validate');
  try {
    const file = path.join(dir, 'config.ign');
    await writeFile(file, config);
    const r = await run('ignition-validate', [file]);
    const report = `${r.stdout}${r.stderr}`.trim();
    const lines = report.split('\n').map((l) => l.trim());
    return {
      ok: r.status === 0,
      report,
      errors: lines.filter((l) => l.startsWith('error')),
      warnings: lines.filter((l) => l.startsWith('warning')),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Ignition's command line for one stage, its cache and state files in `dir`. */
function stageArgs(dir: string, stage: 'fetch-offline' | 'files', root: string): string[] {
  return [
    '-platform',
    'file',
    '-stage',
    stage,
    '-root',
    root,
    '-log-to-stdout',
    '-config-cache',
    path.join(dir, 'ignition.json'),
    '-state-file',
    path.join(dir, 'state'),
    '-neednet',
    path.join(dir, 'neednet'),
  ];
}

function runStage(dir: string, configFile: string, stage: 'fetch-offline' | 'files', root: string): Promise<Ran> {
  return run(IGNITION_BINARY, stageArgs(dir, stage, root), {
    PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    IGNITION_CONFIG_FILE: configFile,
  });
}

/** The config Ignition ends up with after fetching (its merges applied), as its cache holds it. */
export async function ignitionFetchOffline(
  config: string | Buffer,
): Promise<{ ok: boolean; config?: unknown; log: string }> {
  const dir = await scratch('ign-fetch');
  try {
    const root = path.join(dir, 'root');
    await mkdir(root);
    const configFile = path.join(dir, 'config.ign');
    await writeFile(configFile, config);
    const r = await runStage(dir, configFile, 'fetch-offline', root);
    const log = `${r.stdout}${r.stderr}`;
    if (r.status !== 0) return { ok: false, log };
    return { ok: true, config: JSON.parse(await readFile(path.join(dir, 'ignition.json'), 'utf8')), log };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface IgnitionRun {
  /** Both stages exited 0. */
  ok: boolean;
  /** Stage → exit status and its log (stdout and stderr), in the order run. */
  stages: Map<string, { exit: number | null; log: string }>;
  /** Every stage's log, for failure messages. */
  log: string;
  /** The scratch root (removed by `cleanup`). */
  root: string;
  tree: Map<string, TreeEntry>;
  /** The preset files Ignition wrote: path → contents. */
  presets: Map<string, string>;
  cleanup(): Promise<void>;
}

/**
 * Runs `fetch-offline` then (when it succeeded) `files` on `config` with the `file` platform, into
 * a fresh root seeded by fixtures/lib/live-root.sh, and reads the root back. Needs CAN_APPLY_IGNITION.
 */
export async function applyIgnition(config: Buffer | string): Promise<IgnitionRun> {
  const dir = await scratch('ignition');
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    // Ignition writes a user's SSH keys as that user: the path to the root must be searchable by all.
    await chmod(dir, 0o755);
    const root = path.join(dir, 'root');
    const seed = await run('bash', ['-c', 'source "$0" && make_live_root "$1"', LIVE_ROOT_LIB, root]);
    if (seed.status !== 0) throw new Error(`make_live_root ${root}: ${seed.stderr}`);
    const configFile = path.join(dir, 'config.ign');
    await writeFile(configFile, config);
    const stages = new Map<string, { exit: number | null; log: string }>();
    for (const stage of ['fetch-offline', 'files'] as const) {
      const r = await runStage(dir, configFile, stage, root);
      stages.set(stage, { exit: r.status, log: `${r.stdout}${r.stderr}` });
      if (r.status !== 0) break;
    }
    const presets = new Map<string, string>();
    const presetDir = path.join(root, 'etc/systemd/system-preset');
    if (existsSync(presetDir))
      for (const f of readdirSync(presetDir))
        presets.set(`/etc/systemd/system-preset/${f}`, await readFile(path.join(presetDir, f), 'utf8'));
    return {
      ok: [...stages.values()].every((s) => s.exit === 0) && stages.size === 2,
      stages,
      log: [...stages].map(([s, r]) => `--- ${s} (exit ${r.exit})\n${r.log}`).join('\n'),
      root,
      tree: readTree(root),
      presets,
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * Drops what Ignition adds when it normalizes a config (empty objects such as `user: {}` and
 * `verification: {}`, empty lists), so its merge result compares with ours field by field.
 */
export function withoutEmpties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpties);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const clean = withoutEmpties(v);
    if (clean === undefined || clean === null) continue;
    if (typeof clean === 'object' && Object.keys(clean).length === 0) continue;
    out[k] = clean;
  }
  return out;
}
