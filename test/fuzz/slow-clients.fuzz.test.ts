// Fault category "slow-clients" (issue 15, finding 1): hostile clients against a real
// `bootsmith serve` child process with short limits, while a well-behaved client keeps asking.
//
// Seeded cases (fast-check), run a batch at a time, each from its own loopback address:
//   idle                 connects and sends nothing                  closed by the header timeout
//   half-headers         part of a request head, maybe trickled      closed by the header timeout
//   trickle-body         a POST whose body arrives a byte at a time  closed by the body timeout
//   never-read           requests the ISO and stops reading          stream cut by the send timeout
//   byte-per-second      requests the ISO, then reads a byte a second from its TCP socket:
//                        cut by the send timeout like never-read (issue 23, finding 2)
//   idle-after-request   one request, then silence                   closed by the idle timeout
//   flood                3× the per-address idle cap from one address: the excess closed at once
// plus one scenario from the issue: 1,100 idle sockets against a process whose open-file limit
// is 1,024; every well-behaved request must still be answered.
//
// Figures: a hang is a hostile connection still open past its bound (or a well-behaved request
// with no answer within its bound); a crash is the service exiting, a 5xx, or a well-behaved
// request answered wrongly or not at all. Bounds are the configured limit plus slack for Node's
// deadline check interval and its keep-alive grace second; the send timeout's slack is below the
// timeout itself, so a stream cut only at twice it (Node's own socket timeout) is a hang.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stallingGet } from '../../src/http/transport/test-support/stalling-clients.js';
import { HAVE_PRLIMIT } from '../support/probes.js';
import { unavailable } from '../support/requirements.js';
import { FUZZ_SEED, LONG, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';
import { builtCli } from './support/cli.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const API = '/api/assisted-install/v2';

/** The child's limits (env) and the bound each hostile case gets (limit + slack). */
const LIMITS = {
  HTTP_HEADER_TIMEOUT: '1s',
  HTTP_BODY_TIMEOUT: '1s',
  HTTP_IDLE_TIMEOUT: '1s',
  HTTP_SEND_TIMEOUT: '2s',
  HTTP_MAX_IDLE_PER_ADDRESS: '8',
};
const IDLE_CAP = 8;
const SLACK_MS = 2_500;
/** The send timeout's sampling (a tenth of it) and event-loop delay; less than the 2 s timeout. */
const SEND_SLACK_MS = 1_500;
const BOUND_MS = {
  header: 1_000 + SLACK_MS,
  body: 2_000 + SLACK_MS,
  idle: 2_000 + SLACK_MS,
  send: 2_000 + SEND_SLACK_MS,
} as const;
/** Hostile cases running at once (each on its own source address). */
const BATCH = 10;
/** How long a well-behaved request may take before it counts as a hang. */
const WELL_BEHAVED_BOUND_MS = 10_000;
const ISO_PAD_MIB = 64;

type Case =
  | { kind: 'idle' }
  | { kind: 'half-headers'; prefix: number; trickleMs: number }
  | { kind: 'trickle-body'; declared: number; intervalMs: number }
  | { kind: 'never-read'; style: 'byid' | 'query'; readFirst: number }
  | { kind: 'byte-per-second'; style: 'byid' | 'query' }
  | { kind: 'idle-after-request' }
  | { kind: 'flood'; sockets: number };

const caseArbitrary: fc.Arbitrary<Case> = fc.oneof(
  fc.constant({ kind: 'idle' as const }),
  fc.record({
    kind: fc.constant('half-headers' as const),
    prefix: fc.nat(200),
    trickleMs: fc.constantFrom(0, 100, 300),
  }),
  fc.record({
    kind: fc.constant('trickle-body' as const),
    declared: fc.integer({ min: 100, max: 1_000_000 }),
    intervalMs: fc.integer({ min: 50, max: 400 }),
  }),
  fc.record({
    kind: fc.constant('never-read' as const),
    style: fc.constantFrom('byid' as const, 'query' as const),
    readFirst: fc.nat(256 * 1024),
  }),
  fc.record({
    kind: fc.constant('byte-per-second' as const),
    style: fc.constantFrom('byid' as const, 'query' as const),
  }),
  fc.constant({ kind: 'idle-after-request' as const }),
  fc.record({ kind: fc.constant('flood' as const), sockets: fc.integer({ min: IDLE_CAP + 1, max: IDLE_CAP * 3 }) }),
);

interface Child {
  url: string;
  port: number;
  process: ChildProcess;
  exited: boolean;
  logPath: string;
  stop(): Promise<void>;
}

const figures = { cases: 0, crashes: 0, hangs: 0, notes: [] as string[] };
let workDir: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

async function startChild(name: string, env: Record<string, string>, wrap: string[] = []): Promise<Child> {
  const port = await freePort();
  const logPath = path.join(workDir, `${name}.log`);
  const log = createWriteStream(logPath);
  const command = wrap.length ? wrap[0]! : process.execPath;
  const args = [...wrap.slice(1), ...(wrap.length ? [process.execPath] : []), builtCli(), 'serve'];
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH,
      LISTEN_PORT: String(port),
      LISTEN_ADDRESS: '127.0.0.1',
      DATA_DIR: path.join(workDir, `${name}.data`),
      AUTH_TYPE: 'none',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  const handle: Child = {
    url,
    port,
    process: child,
    exited: false,
    logPath,
    async stop() {
      if (handle.exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
  child.once('exit', () => (handle.exited = true));
  for (let i = 0; i < 300; i++) {
    if (handle.exited) throw new Error(`${name} exited at start:\n${await readFile(logPath, 'utf8')}`);
    const health = await plainRequest(url, 'GET', '/health').catch(() => undefined);
    if (health?.status === 200) return handle;
    await sleep(100);
  }
  throw new Error(`${name} did not become healthy in 30 s`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One request on a fresh connection (no pooling), bounded by WELL_BEHAVED_BOUND_MS. */
function plainRequest(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + target,
      { method, headers: { Connection: 'close', ...headers }, agent: false, timeout: WELL_BEHAVED_BOUND_MS },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts), headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('well-behaved request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw connection from `localAddress`; `closed` resolves with the bytes received once it closes. */
function rawConnect(
  port: number,
  localAddress: string,
): Promise<{ socket: net.Socket; received: () => number; closed: Promise<void>; firstBytes: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    let received = 0;
    let gotFirst: (s: string) => void = () => undefined;
    const firstBytes = new Promise<string>((r) => (gotFirst = r));
    socket.on('data', (c: Buffer) => {
      if (received === 0) gotFirst(c.subarray(0, 200).toString('latin1'));
      received += c.length;
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, received: () => received, closed, firstBytes }));
    socket.once('error', reject);
  });
}

/** The first bytes of the answer, or '' when none came within WELL_BEHAVED_BOUND_MS. */
function firstAnswer(conn: { firstBytes: Promise<string> }): Promise<string> {
  return Promise.race([conn.firstBytes, sleep(WELL_BEHAVED_BOUND_MS).then(() => '')]);
}

/** Resolves true if `p` settles within `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const result = await Promise.race([p.then(() => true as const), timeout]);
  clearTimeout(timer);
  return result;
}

describe('slow and idle clients against bootsmith serve', () => {
  let child: Child;
  let isoTarget: { byid: string; query: string };
  let isoSize = 0;
  let reference: Buffer;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'bootsmith-slow-clients-'));
    await chmod(workDir, 0o711); // as root the embedded PostgreSQL runs unprivileged: DATA_DIR's parents must be searchable
    // A 64 MiB CoreOS-style ISO (sparse padding): far more than loopback socket buffers hold.
    const iso = path.join(workDir, 'big.iso');
    const made = spawnSync(
      'bash',
      [path.join(REPO_ROOT, 'fixtures', 'build-live-iso.sh'), '--size-pad', String(ISO_PAD_MIB), '--out', iso],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) throw new Error(`building the ISO failed:\n${made.stdout}${made.stderr}`);
    const osImages = [
      { openshift_version: '4.17', cpu_architecture: 'x86_64', url: iso, version: '417.94.202410090854-0' },
    ];
    child = await startChild('limits', { ...LIMITS, OS_IMAGES: JSON.stringify(osImages) });
    const created = await plainRequest(
      child.url,
      'POST',
      `${API}/infra-envs`,
      { 'Content-Type': 'application/json' },
      JSON.stringify({ name: 'slow', pull_secret: '{"auths":{}}', openshift_version: '4.17' }),
    );
    expect(created.status).toBe(201);
    const infraEnv = JSON.parse(created.body.toString()) as { id: string; download_url: string };
    isoTarget = {
      byid: new URL(infraEnv.download_url).pathname,
      query: `/images/${infraEnv.id}?version=4.17&type=full-iso`,
    };
    const head = await plainRequest(child.url, 'HEAD', isoTarget.byid);
    isoSize = Number(head.headers['content-length']);
    expect(isoSize).toBeGreaterThan(ISO_PAD_MIB * 1024 * 1024);
    reference = (await plainRequest(child.url, 'GET', isoTarget.byid, { Range: 'bytes=0-65535' })).body;
    expect(reference.length).toBe(65_536);
  }, 180_000);

  afterAll(async () => {
    await child?.stop();
    recordFigures({
      category: 'slow-clients',
      cases: figures.cases,
      crashes: figures.crashes,
      hangs: figures.hangs,
      wrongAcceptances: 0,
      dataLost: 0,
      notes: figures.notes.join('; '),
    });
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  /** Runs one hostile case from `address`; returns a problem description, or undefined when it was closed in bound. */
  async function runCase(c: Case, address: string): Promise<string | undefined> {
    switch (c.kind) {
      case 'idle': {
        const conn = await rawConnect(child.port, address);
        return (await within(conn.closed, BOUND_MS.header)) ? undefined : 'idle socket still open';
      }
      case 'half-headers': {
        const conn = await rawConnect(child.port, address);
        const head = `GET ${isoTarget.byid} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\nX-Pad: ${'p'.repeat(150)}\r\n`;
        conn.socket.write(head.slice(0, Math.min(c.prefix, head.length - 1)));
        const trickle =
          c.trickleMs > 0 ? setInterval(() => conn.socket.writable && conn.socket.write('a'), c.trickleMs) : undefined;
        const ok = await within(conn.closed, BOUND_MS.header);
        if (trickle) clearInterval(trickle);
        conn.socket.destroy();
        return ok ? undefined : `half-header socket (prefix ${c.prefix}, trickle ${c.trickleMs} ms) still open`;
      }
      case 'trickle-body': {
        const conn = await rawConnect(child.port, address);
        conn.socket.write(
          `POST ${API}/infra-envs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${c.declared}\r\n\r\n{`,
        );
        const trickle = setInterval(() => conn.socket.writable && conn.socket.write(' '), c.intervalMs);
        const ok = await within(conn.closed, BOUND_MS.header + BOUND_MS.body);
        clearInterval(trickle);
        const status = /^HTTP\/1\.1 (\d{3})/.exec(await Promise.race([conn.firstBytes, Promise.resolve('')]))?.[1];
        conn.socket.destroy();
        if (status?.startsWith('5')) return `trickle-body answered ${status}`;
        return ok ? undefined : `trickle-body socket (${c.declared} bytes at one per ${c.intervalMs} ms) still open`;
      }
      case 'never-read': {
        const conn = await rawConnect(child.port, address);
        conn.socket.write(`GET ${isoTarget[c.style]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        const first = await firstAnswer(conn);
        if (!first.startsWith('HTTP/1.1 200')) return `never-read got ${JSON.stringify(first.slice(0, 20))}`;
        const readUntil = Date.now() + WELL_BEHAVED_BOUND_MS;
        while (conn.received() < c.readFirst && !conn.socket.destroyed && Date.now() < readUntil) await sleep(5);
        conn.socket.pause();
        await sleep(BOUND_MS.send);
        // The server must have given up: what is left in the buffers drains, then the connection ends short of the ISO.
        conn.socket.resume();
        const ended = await within(conn.closed, 3_000);
        conn.socket.destroy();
        if (!ended) return `never-read stream still open (${conn.received()} bytes received)`;
        return conn.received() < isoSize
          ? undefined
          : 'never-read client received the whole ISO: the stream was not cut';
      }
      case 'byte-per-second': {
        const client = await stallingGet({
          port: child.port,
          path: isoTarget[c.style],
          localAddress: address,
          mode: 'byte-per-second',
        });
        if (client.status !== 200) {
          client.destroy();
          return `byte-per-second got ${client.status}`;
        }
        await sleep(BOUND_MS.send);
        // The server must have given up: reading fast now drains the buffers, then the body ends short.
        client.fast();
        const ended = await within(client.closed, 3_000);
        client.destroy();
        if (!ended) return `byte-per-second stream still open (${client.received()} bytes received)`;
        return client.received() < isoSize
          ? undefined
          : 'byte-per-second client received the whole ISO: the stream was not cut';
      }
      case 'idle-after-request': {
        const conn = await rawConnect(child.port, address);
        conn.socket.write('GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        const first = await firstAnswer(conn);
        if (!first.startsWith('HTTP/1.1 200')) return `idle-after-request got ${JSON.stringify(first.slice(0, 20))}`;
        return (await within(conn.closed, BOUND_MS.idle))
          ? undefined
          : 'keep-alive socket still open after its response';
      }
      case 'flood': {
        const conns = [];
        for (let i = 0; i < c.sockets; i++) conns.push(await rawConnect(child.port, address));
        await sleep(300);
        const open = conns.filter((k) => !k.socket.destroyed && k.socket.readyState === 'open').length;
        const allClosed = await within(Promise.all(conns.map((k) => k.closed)), BOUND_MS.header);
        if (open > IDLE_CAP)
          return `flood of ${c.sockets}: ${open} idle sockets from one address stayed open (cap ${IDLE_CAP})`;
        return allClosed ? undefined : `flood of ${c.sockets}: sockets still open past the header bound`;
      }
    }
  }

  it(
    'closes every hostile connection within its bound while a well-behaved client keeps getting correct answers',
    async () => {
      const cases = fc.sample(caseArbitrary, { seed: FUZZ_SEED, numRuns: fuzzRuns(40) });
      const problems: string[] = [];
      let stop = false;
      let wellBehaved = 0;
      const wellBehavedLoop = (async () => {
        while (!stop) {
          try {
            const live = await plainRequest(child.url, 'GET', '/live');
            const range = await plainRequest(child.url, 'GET', isoTarget.query, { Range: 'bytes=0-65535' });
            wellBehaved += 2;
            if (live.status !== 200 || range.status !== 206 || !range.body.equals(reference)) {
              figures.crashes++;
              problems.push(
                `well-behaved client answered ${live.status}/${range.status}${range.body.equals(reference) ? '' : ' with wrong bytes'}`,
              );
            }
          } catch (err) {
            if (String(err).includes('timed out')) figures.hangs++;
            else figures.crashes++;
            problems.push(`well-behaved request failed: ${(err as Error).message}`);
          }
          await sleep(100);
        }
      })();

      for (let start = 0; start < cases.length; start += BATCH) {
        const batch = cases.slice(start, start + BATCH);
        const results = await Promise.all(
          batch.map((c, i) =>
            runCase(c, `127.0.0.${10 + ((start + i) % 200)}`).catch((err: Error) => `case threw: ${err.message}`),
          ),
        );
        figures.cases += batch.length;
        results.forEach((problem, i) => {
          if (!problem) return;
          if (problem.includes(' answered 5') || problem.startsWith('case threw')) figures.crashes++;
          else figures.hangs++;
          problems.push(`${JSON.stringify(batch[i])}: ${problem}`);
        });
        if (child.exited) {
          figures.crashes++;
          problems.push('the service exited');
          break;
        }
      }
      stop = true;
      await wellBehavedLoop;
      const metrics = (await plainRequest(child.url, 'GET', '/metrics')).body.toString();
      const closed = [...metrics.matchAll(/bootsmith_http_connections_closed_total\{reason="(\w+)"\} (\d+)/g)]
        .map((m) => `${m[1]}=${m[2]}`)
        .join(' ');
      const kinds = new Map<string, number>();
      for (const c of cases) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
      figures.notes.push(
        `${cases.length} hostile cases (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}), ${wellBehaved} well-behaved requests alongside; closed by limit: ${closed}`,
      );
      expect(problems).toEqual([]);
      expect(wellBehaved).toBeGreaterThan(0);
    },
    LONG ? 1_200_000 : 120_000,
  );

  it.skipIf(unavailable({ 'prlimit (util-linux)': HAVE_PRLIMIT }))(
    'answers every real request while 1,100 idle sockets press on a 1,024 open-file limit',
    async () => {
      const limited = await startChild(
        'nofile',
        {
          HTTP_MAX_IDLE_PER_ADDRESS: '1000',
          OS_IMAGES: JSON.stringify([
            {
              openshift_version: '4.17',
              cpu_architecture: 'x86_64',
              url: path.join(REPO_ROOT, 'fixtures', 'iso', 'x86_64.iso'),
              version: '417.94.202410090854-0',
            },
          ]),
        },
        ['prlimit', '--nofile=1024:1024', '--'],
      );
      const idle: net.Socket[] = [];
      let answered = 0;
      let failed = 0;
      try {
        for (let i = 0; i < 1_100; i++) {
          const conn = await rawConnect(limited.port, `127.0.1.${1 + (i % 11)}`);
          idle.push(conn.socket);
        }
        for (let i = 0; i < 20; i++) {
          try {
            const res = await plainRequest(limited.url, 'GET', i % 2 ? '/live' : `${API}/infra-envs`);
            if (res.status === 200) answered++;
            else failed++;
          } catch {
            failed++;
          }
        }
        const metrics = (await plainRequest(limited.url, 'GET', '/metrics')).body.toString();
        const cap = /bootsmith_http_connection_limit (\d+)/.exec(metrics)?.[1];
        const capClosed =
          /bootsmith_http_connections_closed_total\{reason="connection_cap"\} (\d+)/.exec(metrics)?.[1] ?? '0';
        figures.notes.push(
          `1,100 idle sockets, open-file limit 1,024: cap ${cap}, ${capClosed} idle closed at the cap, ${answered}/20 real requests answered`,
        );
        expect(Number(cap)).toBeLessThan(1024);
        expect(Number(capClosed)).toBeGreaterThan(0);
      } finally {
        figures.cases += 1;
        if (failed > 0) {
          figures.crashes++;
          figures.notes.push(`${failed} real requests failed beside 1,100 idle sockets`);
        }
        for (const s of idle) s.destroy();
        await limited.stop();
      }
      expect(answered).toBe(20);
    },
    120_000,
  );
});
