// A real `bootsmith serve` child process for crash tests: started on a free loopback port with
// a given DATA_DIR, killed with any signal, and the embedded PostgreSQL processes of a
// DATA_DIR found through /proc (their working directory is DATA_DIR/postgres/data).
import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { API_PREFIX } from '../../src/url-grammar.js';
import { REPO_ROOT } from './build-cli.js';

/** First start includes initdb (≈1 s idle, several on a loaded machine). */
const READY_TIMEOUT_MS = 60_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ServeChild {
  child: ChildProcess;
  url: string;
  api: string;
  output(): string;
  exited: Promise<number | null>;
}

/** The last output kept per child, for failure messages. */
const OUTPUT_KEEP_BYTES = 64 * 1024;

export interface SpawnedServe {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/** Spawns `bootsmith serve` on a free loopback port with `dataDir`, without waiting for it. */
export async function spawnServe(
  cli: string,
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  args: string[] = ['--role', 'core'],
): Promise<SpawnedServe> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [cli, 'serve', ...args], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LISTEN_ADDRESS: '127.0.0.1',
      LISTEN_PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      AUTH_TYPE: 'none', // the default is local; startServe polls the API without a token
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const take = (b: Buffer) => {
    out = (out + b.toString('utf8')).slice(-OUTPUT_KEEP_BYTES);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/** Spawns `bootsmith serve` and waits until its API answers. */
export async function startServe(
  cli: string,
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  args: string[] = ['--role', 'core'],
): Promise<ServeChild> {
  const { child, url, output, exited } = await spawnServe(cli, dataDir, env, args);
  const until = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`bootsmith serve exited during start:\n${output()}`);
    const ok = await fetch(`${url}${API_PREFIX}/infra-envs`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`bootsmith serve not ready within ${READY_TIMEOUT_MS} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, api: `${url}${API_PREFIX}`, output, exited };
}

/** PIDs of the PostgreSQL processes (postmaster and backends) running on DATA_DIR. */
export async function postgresProcesses(dataDir: string): Promise<number[]> {
  const pgdata = path.join(path.resolve(dataDir), 'postgres', 'data');
  const found: number[] = [];
  for (const e of await readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    if ((await readlink(`/proc/${e}/cwd`).catch(() => '')) === pgdata) found.push(Number(e));
  }
  return found;
}
