// How long the event loop stalls while bootsmith handles the largest ignition_config_override it
// accepts (issue 23, finding 3): `GET /live` is polled back to back on a keep-alive connection
// while InfraEnvs with such overrides are created, their discovery.ign fetched and their ISO
// read (IGNITION_CACHE_TTL_SECONDS=0: every ISO request asks the core again, as a cache expiry
// does), and while the hostile run's oversized and deeply nested overrides are refused.
//
//   npm run build && node bench/ignition-override-latency.mjs [--service-root DIR] [--repeats 3] [--cpu-prof DIR]
//
// bootsmith runs as deployed (`node DIR/dist/src/cli/main.js serve`, embedded PostgreSQL, the
// bundled demo ISO, AUTH_TYPE none) on a loopback port. Prints one line per phase (status codes,
// request time, /live p50/p99/max and samples) and writes bench/results/<date>-ignition-override.json.
// --service-root runs another build (e.g. an export of main before the fix) for a comparison.
// Every wait is bounded. Not part of npm test.
/* global fetch, performance, AbortSignal */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const serviceRoot = path.resolve(opt('service-root', ROOT));
const repeats = Number(opt('repeats', '3'));
/** --cpu-prof DIR: V8 CPU profiles of bootsmith's threads (main and render workers) into DIR. */
const cpuProfDir = opt('cpu-prof', undefined);
const API = '/api/assisted-install/v2';
const PULL_SECRET = JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('u:p').toString('base64') } } });
/** The limits of src/core/discovery-ignition/override-limits.ts. */
const MAX_BYTES = 1024 * 1024;
const MAX_ENTRIES = 10_000;
const START_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_MS = 120_000;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The largest override by entries: MAX_ENTRIES small files (≈1 MiB of JSON; gzip fits the embed area). */
function maxEntriesOverride() {
  const files = Array.from({ length: MAX_ENTRIES }, (_, i) => ({
    path: `/etc/bootsmith-bench/f${String(i).padStart(5, '0')}`,
    mode: 420,
    contents: { source: `data:,line%20${i}` },
  }));
  return JSON.stringify({ ignition: { version: '3.1.0' }, storage: { files } });
}

/** The largest override by bytes: one file whose data URL fills MAX_BYTES (compressible text). */
function maxBytesOverride() {
  const head = {
    ignition: { version: '3.1.0' },
    storage: { files: [{ path: '/etc/bootsmith-bench/big', contents: { source: '' } }] },
  };
  const room = MAX_BYTES - JSON.stringify(head).length - 16;
  head.storage.files[0].contents.source = `data:,${'abcdefgh'.repeat(Math.floor(room / 8))}`;
  return JSON.stringify(head);
}

/** The hostile run's finding: 80k files, 1.7 MB. */
function attackOverride() {
  const files = Array.from({ length: 80_000 }, (_, i) => ({ path: `/f/${i}` }));
  return JSON.stringify({ ignition: { version: '3.1.0' }, storage: { files } });
}

/** Nested where the old validator did not look (storage.disks entries): JSON.stringify overflowed, a 500. */
function deepOverride() {
  return `{"ignition":{"version":"3.1.0"},"storage":{"disks":[${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}]}}`;
}

const percentile = (xs, p) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** Polls /live back to back on one keep-alive connection; samples are [start ms, latency ms]. */
function startProbe(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  let running = true;
  const once = () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.get({ host: '127.0.0.1', port, path: '/live', agent, timeout: 60_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          samples.push([t0, performance.now() - t0]);
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        samples.push([t0, performance.now() - t0]);
        resolve();
      });
    });
  const loop = (async () => {
    while (running) {
      await once();
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await loop;
      agent.destroy();
    },
  };
}

async function request(base, method, target, body) {
  const t0 = performance.now();
  try {
    const res = await fetch(base + target, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - t0, text };
  } catch (err) {
    // a server that stalls long enough may close the connection (its own timeouts): record it
    return { status: `error (${err.cause?.code ?? err.name})`, ms: performance.now() - t0, text: '' };
  }
}

const work = await mkdtemp(path.join(tmpdir(), 'bootsmith-ignition-bench-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const nodeArgs = cpuProfDir
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfDir)}`, '--cpu-prof-interval=250']
  : [];
const child = spawn(process.execPath, [...nodeArgs, path.join(serviceRoot, 'dist/src/cli/main.js'), 'serve'], {
  env: {
    ...process.env,
    LISTEN_PORT: String(port),
    LISTEN_ADDRESS: '127.0.0.1',
    DATA_DIR: work,
    LOG_LEVEL: 'warn',
    IGNITION_CACHE_TTL_SECONDS: '0',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const results = [];
try {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const ok = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error('bootsmith did not become healthy');
    await new Promise((r) => setTimeout(r, 250));
  }
  const probe = startProbe(port);
  const phase = async (name, fn) => {
    const from = performance.now();
    const outcomes = await fn();
    const to = performance.now();
    const live = probe.samples.filter(([t]) => t >= from && t <= to).map(([, ms]) => ms);
    const row = {
      phase: name,
      statuses: [...new Set(outcomes.map((o) => o.status))].join(','),
      requestMsMax: Math.max(...outcomes.map((o) => o.ms)),
      liveSamples: live.length,
      liveP50: percentile(live, 50),
      liveP99: percentile(live, 99),
      liveMax: live.length ? Math.max(...live) : NaN,
    };
    results.push(row);
    console.log(
      [
        row.phase.padEnd(44),
        `status ${row.statuses}`.padEnd(14),
        `request max ${row.requestMsMax.toFixed(0)} ms`.padEnd(22),
        `/live p50 ${row.liveP50.toFixed(2)} p99 ${row.liveP99.toFixed(2)} max ${row.liveMax.toFixed(2)} ms (n=${row.liveSamples})`,
      ].join(' '),
    );
    return outcomes;
  };
  const create = (override) =>
    request(base, 'POST', `${API}/infra-envs`, {
      name: 'bench',
      pull_secret: PULL_SECRET,
      openshift_version: '4.17',
      ignition_config_override: override,
    });
  const entries = maxEntriesOverride();
  const bytes = maxBytesOverride();
  console.log(`override sizes: ${entries.length} bytes / ${MAX_ENTRIES} entries; ${bytes.length} bytes / 1 entry`);

  await phase('idle', async () => {
    await new Promise((r) => setTimeout(r, 2000));
    return [{ status: 0, ms: 0 }];
  });
  let id;
  for (let i = 0; i < repeats; i++) {
    const [r] = await phase(
      `create, ${MAX_ENTRIES} entries (${(entries.length / 1048576).toFixed(2)} MiB)`,
      async () => [await create(entries)],
    );
    if (r.status === 201) id = JSON.parse(r.text).id;
  }
  for (let i = 0; i < repeats; i++)
    await phase(`create, one ${(bytes.length / 1048576).toFixed(2)} MiB file`, async () => [await create(bytes)]);
  if (id) {
    await phase('discovery.ign x20, 4 at a time', async () => {
      const out = [];
      for (let i = 0; i < 5; i++) {
        out.push(
          ...(await Promise.all(
            Array.from({ length: 4 }, () =>
              request(base, 'GET', `${API}/infra-envs/${id}/downloads/files?file_name=discovery.ign`),
            ),
          )),
        );
      }
      return out;
    });
    await phase('ISO range reads x20 (Ignition cache TTL 0)', async () => {
      const out = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        const res = await fetch(`${base}/byid/${id}/4.17/x86_64/full.iso`, {
          headers: { Range: `bytes=${i * 65536}-${i * 65536 + 65535}` },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        out.push({ status: res.status, ms: performance.now() - t0 });
      }
      return out;
    });
  }
  await phase('refused: 80k files, 1.7 MB (the finding)', async () => [await create(attackOverride())]);
  await phase('refused: 100,000 levels deep in storage.disks', async () => [await create(deepOverride())]);
  await probe.stop();
  const stamp = new Date().toISOString().slice(0, 10);
  await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
  const out = path.join(ROOT, 'bench/results', `${stamp}-ignition-override.json`);
  await writeFile(
    out,
    `${JSON.stringify(
      { date: new Date().toISOString(), serviceRoot, cpus: os.cpus().length, loadavg: os.loadavg(), results },
      null,
      2,
    )}\n`,
  );
  console.log(
    `wrote ${path.relative(ROOT, out)} (load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await rm(work, { recursive: true, force: true });
}
