// The parts of the scale-out test, each a real engine on loopback: a throwaway database on
// Debian's PostgreSQL, an s3rver bucket holding the base ISO, `bootsmith serve` replicas as
// child processes, and Debian's haproxy round-robin in front of them.
// Does: start and stop them, wait for readiness with bounded waits, keep each child's output.
// Does NOT: assert anything (test/scale/scale.test.ts does).
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import S3rver from 's3rver';
import { spawnServe } from '../../support/serve-child.js';

/** A replica's first start (migrations, keys, a 48 MiB image from S3) on a loaded two-core machine. */
const READY_TIMEOUT_MS = 90_000;
/** haproxy starts in milliseconds; its first health checks pass within a few check intervals. */
const HAPROXY_READY_TIMEOUT_MS = 20_000;
const POLL_MS = 100;
/** Output kept per child for the error message of a failed wait. */
const OUTPUT_KEEP_BYTES = 64 * 1024;

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the server of TEST_DATABASE_URL, dropped (with its sessions) by drop(). */
export async function scratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const name = `bootsmith_scale_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface ObjectStore {
  port: number;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** s3rver on loopback with one bucket holding `bytes` at `key`; `env` is what replicas need to read it. */
export async function startObjectStore(dir: string, bucket: string, key: string, bytes: Buffer): Promise<ObjectStore> {
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await s3.run();
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes }));
  client.destroy();
  return {
    port,
    env: {
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      AWS_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    close: () => s3.close(),
  };
}

export interface Replica {
  name: string;
  port: number;
  url: string;
  dataDir: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** Spawns `bootsmith serve` (not waiting for it); `waitHealthy` waits for /health 200. */
export async function spawnReplica(
  cli: string,
  name: string,
  dataDir: string,
  env: Record<string, string>,
  args: string[] = ['--role', 'all'],
): Promise<Replica> {
  const { child, port, url, output, exited } = await spawnServe(cli, dataDir, env, args);
  return { name, port, url, dataDir, child, exited, output };
}

/** Polls `probe` until it is true, failing with the replica's output after `timeoutMs`. */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  output: () => string = () => '',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${what} not within ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export async function waitHealthy(r: Replica, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  await waitUntil(
    `${r.name} healthy`,
    async () => {
      if (r.child.exitCode !== null) throw new Error(`${r.name} exited during start:\n${r.output()}`);
      const res = await fetch(`${r.url}/health`);
      await res.arrayBuffer();
      return res.status === 200;
    },
    timeoutMs,
    r.output,
  );
}

export async function stopReplica(r: Replica): Promise<void> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  r.child.kill('SIGKILL');
  await r.exited;
}

export interface LoadBalancer {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * haproxy, round-robin per request over `backends`, health-checking `/health` every 300 ms (a
 * draining replica leaves the rotation at its first failed check; a refused connection is
 * retried on another server). Each response says which server answered in `X-Served-By`.
 */
export async function startLoadBalancer(dir: string, port: number, backends: Replica[]): Promise<LoadBalancer> {
  const cfg = path.join(dir, 'haproxy.cfg');
  await writeFile(
    cfg,
    [
      'global',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 120s',
      '  timeout server 120s',
      '  retries 3',
      '  option redispatch',
      'frontend fe',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      '  option httpchk GET /health',
      '  http-check expect status 200',
      '  default-server inter 300ms fall 1 rise 2',
      '  http-response set-header X-Served-By %s',
      ...backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`),
      '',
    ].join('\n'),
  );
  let out = '';
  const child = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
  const take = (b: Buffer) => {
    out = (out + b.toString('utf8')).slice(-OUTPUT_KEEP_BYTES);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    'haproxy answering /health through every server',
    async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited:\n${out}`);
      const seen = new Set<string>();
      for (let i = 0; i < backends.length * 2; i++) {
        const res = await fetch(`${url}/health`);
        await res.arrayBuffer();
        if (res.status !== 200) return false;
        seen.add(res.headers.get('x-served-by') ?? '');
      }
      return seen.size === backends.length;
    },
    HAPROXY_READY_TIMEOUT_MS,
    () => out,
  );
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
