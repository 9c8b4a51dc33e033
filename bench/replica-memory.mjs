// Memory of one scale-out replica under N concurrent ISO streams, for the resources of
// deploy/kubernetes/ (issue 13). A replica as deployed there: `serve --role all` on an external
// PostgreSQL (no embedded server in the process tree), the base ISO from a local file, AUTH_TYPE
// local. For each N, N clients download the same discovery ISO at once, each reading slowly
// (paused between chunks) so all N are in flight together for the whole window; VmRSS is
// sampled every 50 ms and VmHWM read at the end (reset with clear_refs before each N).
//
//   npm run build && node bench/replica-memory.mjs [--database-url URL] [--streams 0,50,200] [--seconds 15]
//
// Writes bench/results/<date>-replica-memory.json and prints a line per N. Loopback only;
// every loop is bounded by the window. Not part of npm test.
/* global fetch, setInterval, clearInterval */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const serverUrl = opt(
  'database-url',
  process.env.TEST_DATABASE_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres',
);
const streamCounts = opt('streams', '0,50,200').split(',').map(Number);
const windowMs = Number(opt('seconds', '15')) * 1000;
/** Each client reads a chunk, then pauses this long: the streams stay in flight for the window. */
const READ_PAUSE_MS = 20;
const PAD_MIB = 256;

const work = await mkdtemp(path.join(tmpdir(), 'bootsmith-replica-memory-'));
const dbName = `bootsmith_mem_${process.pid}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
await admin.end();
const dbUrl = new URL(serverUrl);
dbUrl.pathname = `/${dbName}`;
let child;
try {
  const iso = path.join(work, 'base.iso');
  execFileSync(
    'bash',
    [path.join(ROOT, 'fixtures', 'build-live-iso.sh'), '--size-pad', String(PAD_MIB), '--out', iso],
    {
      stdio: 'ignore',
    },
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await mkdir(path.join(work, 'data'));
  child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'serve', '--role', 'all'], {
    env: {
      PATH: process.env.PATH,
      LISTEN_ADDRESS: '127.0.0.1',
      LISTEN_PORT: String(port),
      DATA_DIR: path.join(work, 'data'),
      DATABASE_URL: dbUrl.toString(),
      AUTH_TYPE: 'local',
      LOG_LEVEL: 'warn',
      // every client is on 127.0.0.1: a load balancer's pool, not an idle flood
      HTTP_MAX_IDLE_PER_ADDRESS: '1000',
      OS_IMAGES: JSON.stringify([
        { openshift_version: '4.17', cpu_architecture: 'x86_64', url: `file://${iso}`, version: '417.94.1' },
      ]),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await until(async () => (await fetch(`${url}/health`)).status === 200, 120_000);
  const token = (await readFile(path.join(work, 'data', 'auth', 'admin-token'), 'utf8')).trim();
  const created = await fetch(`${url}/api/assisted-install/v2/infra-envs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'mem', openshift_version: '4.17', pull_secret: '{"auths":{"q":{"auth":"dTpw"}}}' }),
  });
  const isoPath = new URL((await created.json()).download_url).pathname;

  const results = [];
  for (const n of streamCounts) {
    await writeFile(`/proc/${child.pid}/clear_refs`, '5');
    const rss = [];
    const sampler = setInterval(() => rss.push(vm(child.pid, 'VmRSS')), 50);
    const stop = Date.now() + windowMs;
    const flowing = new Set();
    const clients = Array.from({ length: n }, (_, i) => slowDownload(`${url}${isoPath}`, stop, () => flowing.add(i)));
    await new Promise((r) => setTimeout(r, windowMs));
    await Promise.all(clients);
    clearInterval(sampler);
    const hwm = vm(child.pid, 'VmHWM');
    const result = {
      streams: n,
      streamsThatGotBytes: flowing.size,
      peakRssMiB: mib(Math.max(...rss)),
      vmHwmMiB: mib(hwm),
      medianRssMiB: mib(median(rss)),
    };
    results.push(result);
    console.log(JSON.stringify(result));
    await new Promise((r) => setTimeout(r, 2000));
  }
  // slope between the two largest N: the idle window's figure still holds the start-up's heap
  // before its first full collection
  const [lo, hi] = results.slice(-2);
  const perStream =
    lo && hi && hi.streams > lo.streams ? (hi.medianRssMiB - lo.medianRssMiB) / (hi.streams - lo.streams) : undefined;
  const out = {
    date: new Date().toISOString(),
    what: 'serve --role all on external PostgreSQL, AUTH_TYPE=local, N slow concurrent discovery ISO downloads',
    isoBytes: (await import('node:fs')).statSync(iso).size,
    windowSeconds: windowMs / 1000,
    machine: { cpus: (await import('node:os')).cpus().length, loadavg: (await import('node:os')).loadavg() },
    results,
    mibPerStream: perStream === undefined ? undefined : Math.round(perStream * 1000) / 1000,
  };
  const file = path.join(ROOT, 'bench', 'results', `${out.date.slice(0, 10)}-replica-memory.json`);
  await writeFile(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`MiB per stream ${out.mibPerStream}; written ${path.relative(ROOT, file)}`);
} finally {
  child?.kill('SIGKILL');
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await c.end();
  await rm(work, { recursive: true, force: true });
}

function slowDownload(url, stopAt, gotBytes) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.on('data', () => {
        gotBytes();
        if (Date.now() > stopAt) {
          req.destroy();
          resolve();
          return;
        }
        res.pause();
        setTimeout(() => res.resume(), READ_PAUSE_MS);
      });
      res.once('end', resolve);
      res.once('error', resolve);
    });
    req.once('error', () => resolve());
  });
}

function vm(pid, field) {
  const status = execFileSync('cat', [`/proc/${pid}/status`]).toString();
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}
function mib(b) {
  return Math.round((b / 1024 / 1024) * 10) / 10;
}
function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
}

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

async function until(probe, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > end) throw new Error('replica not ready');
    await new Promise((r) => setTimeout(r, 200));
  }
}
