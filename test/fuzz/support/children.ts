// Fuzz support: the real bootsmith CLI (built once per run, support/cli.ts) as a child process, with its
// output collected, a wait for it to exit, and a free loopback port. Used by the categories that
// kill -9 a service or fill its configuration with hostile images.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { builtCli } from './cli.js';

export interface CliChild {
  proc: ChildProcess;
  output(): string;
  /** Resolves with the exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals>;
}

export function startCli(args: string[], env: Record<string, string>): CliChild {
  const proc = spawn(process.execPath, [builtCli(), ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    proc.on('exit', (code, signal) => resolve(signal ?? code ?? -1)),
  );
  return { proc, output: () => out, exited };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The child's exit, or 'hung' (after killing it) when it has not exited within `ms`. */
export async function exitWithin(child: CliChild, ms: number): Promise<number | NodeJS.Signals | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
  const result = await Promise.race([child.exited, hung]);
  clearTimeout(timer);
  if (result === 'hung') {
    child.proc.kill('SIGKILL');
    await child.exited;
  }
  return result;
}

/** Polls `fn` every 50 ms until it returns a value other than undefined, or throws after `ms`. */
export async function poll<T>(what: string, ms: number, fn: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
