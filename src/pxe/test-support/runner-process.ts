// Builds and starts the PXE wing's child processes: the standalone runner (standalone-runner.ts)
// and the packet-level client fleet (fleet-runner.ts), compiled once per test process with the
// project's TypeScript and runners.tsconfig.json into .cache/pxe-runner/ (Node 20 cannot run .ts),
// then started inside a network namespace with `ip netns exec`. start() waits for the runner's ready line (bounded) and
// turns a `failed` line into an Error carrying the wing's message.
// Does: tsc, spawn, line protocol over stdio. Does NOT: create namespaces (netns-lan.ts).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { PxeStatus } from '../pxe-wing.js';
import type { FleetConfig } from './fleet-runner.js';
import type { RunnerConfig } from './standalone-runner.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The runners' compiler options and files, shared with bench/pxe-fleet.mjs. */
export const RUNNERS_TSCONFIG = path.join(REPO_ROOT, 'src', 'pxe', 'test-support', 'runners.tsconfig.json');
/** tsc of the wing and its test support on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 240_000;
/** Binding, reading the loaders (a few MiB) and printing a line. */
const READY_TIMEOUT_MS = 60_000;
/** A status or metrics answer: the runner's event loop must stay responsive under floods. */
export const ANSWER_TIMEOUT_MS = 10_000;

let built: Promise<string> | undefined;

/** The directory of the compiled runner and fleet (…/src/pxe/test-support/*.js below it). */
export function buildRunners(): Promise<string> {
  built ??= new Promise<string>((resolve, reject) => {
    const parent = path.join(REPO_ROOT, '.cache', 'pxe-runner');
    mkdirSync(parent, { recursive: true });
    const out = mkdtempSync(path.join(parent, 'build-'));
    chmodSync(out, 0o755); // runners started as another user (the privilege test) read it
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    execFile(
      process.execPath,
      [tsc, '-p', RUNNERS_TSCONFIG, '--outDir', out],
      { cwd: REPO_ROOT, timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`tsc failed: ${stdout}${stderr}`)) : resolve(out)),
    );
  });
  return built;
}

/** Removes this process's build of the runners (a test file's afterAll). */
export async function removeRunners(): Promise<void> {
  const out = await built?.catch(() => undefined);
  built = undefined;
  if (out) rmSync(out, { recursive: true, force: true });
}

export async function runnerScript(name: 'standalone-runner' | 'fleet-runner'): Promise<string> {
  return path.join(await buildRunners(), 'src', 'pxe', 'test-support', `${name}.js`);
}

/** A command line run inside `ns` (or here, when undefined). */
export function inNamespace(ns: string | undefined, command: string, args: string[]): [string, string[]] {
  return ns ? ['ip', ['netns', 'exec', ns, command, ...args]] : [command, args];
}

export class RunnerProcess {
  private readonly pending: Array<{ key: string; resolve: (v: unknown) => void }> = [];

  private constructor(
    readonly child: ChildProcess,
    readonly ready: PxeStatus,
    lines: readline.Interface,
    /** The runner's stderr lines so far (JSON log lines). */
    readonly stderr: string[],
  ) {
    lines.on('line', (text) => {
      const message = JSON.parse(text) as Record<string, unknown>;
      const i = this.pending.findIndex((p) => p.key in message);
      if (i < 0) return;
      const waiter = this.pending.splice(i, 1)[0]!;
      waiter.resolve(message[waiter.key]);
    });
  }

  /** Starts the runner with `config` (in `ns` when given) and waits for its ready line. */
  static async start(
    config: RunnerConfig,
    options: { ns?: string; dir: string; wrap?: string[] },
  ): Promise<RunnerProcess> {
    const configPath = path.join(options.dir, `pxe-runner-${process.pid}-${Date.now()}.json`);
    writeFileSync(configPath, JSON.stringify(config), { mode: 0o644 });
    // `wrap` runs the runner through a command such as setpriv (the privilege test).
    const argv = [...(options.wrap ?? []), process.execPath, await runnerScript('standalone-runner'), configPath];
    const [command, args] = inNamespace(options.ns, argv[0]!, argv.slice(1));
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    readline.createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
    const lines = readline.createInterface({ input: child.stdout! });
    const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the PXE runner was not ready within ${READY_TIMEOUT_MS} ms:\n${stderr.join('\n')}`)),
        READY_TIMEOUT_MS,
      );
      lines.once('line', (text) => {
        clearTimeout(timer);
        resolve(JSON.parse(text) as Record<string, unknown>);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the PXE runner exited (${code}) before it was ready:\n${stderr.join('\n')}`));
      });
    });
    if ('failed' in first) throw new Error(String(first.failed));
    return new RunnerProcess(child, first.ready as PxeStatus, lines, stderr);
  }

  private ask<T>(command: 'status' | 'metrics'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the PXE runner did not answer "${command}" within ${ANSWER_TIMEOUT_MS} ms`)),
        ANSWER_TIMEOUT_MS,
      );
      this.pending.push({
        key: command,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
      });
      this.child.stdin!.write(`${command}\n`);
    });
  }

  status(): Promise<PxeStatus> {
    return this.ask<PxeStatus>('status');
  }

  metrics(): Promise<string> {
    return this.ask<string>('metrics');
  }

  /** JSON log lines the runner wrote, parsed. */
  logs(): Array<Record<string, unknown>> {
    return this.stderr.flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Runs the client fleet (fleet-runner.ts) with `config` inside `ns` and returns its JSON line. */
export async function runFleet<T>(
  config: FleetConfig,
  options: { ns?: string; dir: string; timeoutMs: number },
): Promise<T> {
  const configPath = path.join(
    options.dir,
    `pxe-fleet-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`,
  );
  writeFileSync(configPath, JSON.stringify(config));
  const [command, args] = inNamespace(options.ns, process.execPath, [await runnerScript('fleet-runner'), configPath]);
  return new Promise<T>((resolve, reject) => {
    execFile(command, args, { timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (err && !line) return reject(new Error(`the PXE client fleet failed: ${err.message}\n${stderr}`));
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if ('fatal' in parsed) return reject(new Error(`the PXE client fleet failed: ${String(parsed.fatal)}`));
      resolve(parsed as T);
    });
  });
}

/** The value of one sample in Prometheus text (`name{labels} value`), 0 when absent. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let total = 0;
  for (const l of text.split('\n')) {
    if (!l.startsWith(name)) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(l);
    if (!m || m[1] !== name) continue;
    if (want.every((w) => (m[2] ?? '').includes(w))) total += Number(m[3]);
  }
  return total;
}
