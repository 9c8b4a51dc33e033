// Fault category "hostile-paths" (issue 37, finding 1): request targets built to make the
// redaction slow (`eyJ` thousands of times without a dot, long mixed-case tokens, many dots,
// percent-encoded and raw unicode, in a path segment, a query value, after a credential route,
// under the assisted API and the BMC API) sent by 16 unauthenticated clients at once to a real
// `bootsmith serve` (built CLI, child process, AUTH_TYPE=local, LOG_LEVEL=debug so every request's
// access line is redacted too), while a well-behaved client asks `/live` over and over.
//
// The child runs with Node's header limit raised to 128 KiB (NODE_OPTIONS
// --max-http-header-size), so targets of 16–90 KB reach the express 404, the access and error
// logs and the credential routes instead of the parser's 431: the redaction's own bound
// (MAX_REDACTED_LENGTH) is what keeps them cheap. Each case plants a secret (a JWT-shaped key or
// an opaque 32-character token, between slashes) somewhere in the target.
// Figures: a hang is a `/live` answer slower than LIVE_BOUND_MS (the event loop was held) or a
// hostile request unanswered within its bound; a crash is the service exiting or a 5xx; a wrong
// acceptance is a planted secret in the service's log or in an image-side 404's message.
import { createWriteStream } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { spawnServe, type SpawnedServe } from '../support/serve-child.js';
import { FUZZ_SEED, fuzzRuns, LONG } from './support/budget.js';
import { builtCli } from './support/cli.js';
import { recordFigures } from './support/figures.js';

/** The issue's bound: a liveness probe answered within 1 s, on a loaded 2-core machine. */
const LIVE_BOUND_MS = 1_000;
const LIVE_INTERVAL_MS = 100;
const CLIENTS = 16;
/** The child's header limit: room for the largest target below. */
const MAX_HEADER_BYTES = 128 * 1024;
const TARGET_BYTES: readonly [number, number] = [16 * 1024, 90 * 1024];
/** One hostile request's bound (answered, or the connection closed). */
const REQUEST_BOUND_MS = 10_000;
/** The clients send cases (again and again) this long; the long campaign ten times as long. */
const CAMPAIGN_MS = LONG ? 150_000 : 15_000;

type Kind = 'eyj' | 'long-token' | 'many-dots' | 'unicode-escaped' | 'unicode-raw' | 'percent-dots';
type Place = 'segment' | 'query' | 'credential-route' | 'assisted-api' | 'bmc-api';

interface Case {
  kind: Kind;
  place: Place;
  bytes: number;
  /** Where the planted secret sits, as a fraction of the hostile part (≥ 1: none). */
  secretAt: number;
  secretKind: 'jwt' | 'opaque';
  seed: number;
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  kind: fc.constantFrom<Kind>('eyj', 'long-token', 'many-dots', 'unicode-escaped', 'unicode-raw', 'percent-dots'),
  place: fc.constantFrom<Place>('segment', 'query', 'credential-route', 'assisted-api', 'bmc-api'),
  bytes: fc.integer({ min: TARGET_BYTES[0], max: TARGET_BYTES[1] }),
  secretAt: fc.double({ min: 0, max: 1.5, noNaN: true }),
  secretKind: fc.constantFrom<'jwt' | 'opaque'>('jwt', 'opaque'),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
});

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function randomText(seed: number, length: number, alphabet = BASE64URL): string {
  let a = seed >>> 0;
  let out = '';
  for (let i = 0; i < length; i++) {
    a = (Math.imul(a, 1_103_515_245) + 12_345) >>> 0;
    out += alphabet[(a >>> 8) % alphabet.length];
  }
  return out;
}

/** The secret a case plants and the part of it that must never be logged (a JWT's signature). */
function secretOf(c: Case): { planted: string; telltale: string } {
  if (c.secretKind === 'opaque') {
    // mixed case for sure, as the short /bytoken/ tokens are
    const token = `Aa${randomText(c.seed, 30)}`;
    return { planted: token, telltale: token };
  }
  const signature = randomText(c.seed ^ 0x5a5a, 43);
  return { planted: `eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ${randomText(c.seed, 20)}.${signature}`, telltale: signature };
}

function hostilePart(c: Case): string {
  const unit: Record<Kind, string> = {
    eyj: 'eyJ',
    'long-token': randomText(c.seed, 64),
    'many-dots': c.seed % 2 ? 'eyJa.' : '.',
    'unicode-escaped': encodeURIComponent('é😀ſK'),
    'unicode-raw': 'é😀ſK',
    'percent-dots': '%2E%2e',
  };
  const piece = unit[c.kind];
  return piece.repeat(Math.ceil(c.bytes / Buffer.byteLength(piece)));
}

/** The whole request target of a case (its hostile part with the secret planted between slashes). */
function targetOf(c: Case): { target: string; telltale?: string } {
  let part = hostilePart(c);
  let telltale: string | undefined;
  if (c.secretAt < 1) {
    const secret = secretOf(c);
    const at = Math.floor(part.length * c.secretAt);
    part = `${part.slice(0, at)}/${secret.planted}/${part.slice(at)}`;
    telltale = secret.telltale;
  }
  switch (c.place) {
    case 'segment':
      return { target: `/x/${part}`, telltale };
    case 'query':
      return { target: `/images/x?type=full-iso&q=${part}`, telltale };
    case 'credential-route':
      return { target: `/byapikey/${part}/4.17/x86_64/full.iso`, telltale };
    case 'assisted-api':
      return { target: `/api/assisted-install/v2/${part}`, telltale };
    case 'bmc-api':
      return { target: `/api/bootsmith/v1/bmcs/${part}`, telltale };
  }
}

interface RawAnswer {
  status: number;
  body: string;
}

/** One request on its own connection, the target sent as it is (raw bytes, no client-side checks). */
function rawGet(port: number, target: string): Promise<RawAnswer | 'hung' | 'reset'> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('hung');
    }, REQUEST_BOUND_MS);
    socket.on('connect', () => socket.end(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve(status ? { status: Number(status[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) } : 'reset');
    });
  });
}

let dir: string;
let serve: SpawnedServe;
let logPath: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-hostile-paths-'));
  await chmod(dir, 0o711);
  logPath = path.join(dir, 'serve.log');
  serve = await spawnServe(
    builtCli(),
    dir,
    { AUTH_TYPE: 'local', LOG_LEVEL: 'debug', NODE_OPTIONS: `--max-http-header-size=${MAX_HEADER_BYTES}` },
    [],
  );
  const log = createWriteStream(logPath);
  serve.child.stdout!.pipe(log);
  serve.child.stderr!.pipe(log);
  const until = Date.now() + 120_000;
  while (
    (await fetch(`${serve.url}/live`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (serve.child.exitCode !== null || Date.now() > until) throw new Error(`serve did not start:\n${serve.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 180_000);
afterAll(async () => {
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('hostile request targets through every redaction never hold the event loop: /live within 1 s', async () => {
  const cases = fc.sample(caseArbitrary, { numRuns: fuzzRuns(200), seed: FUZZ_SEED });
  const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0 };
  const notes: string[] = [];
  const note = (text: string) => {
    if (notes.length < 20) notes.push(text);
  };
  const telltales: string[] = [];
  const started = Date.now();

  let probing = true;
  const live: number[] = [];
  const probe = (async () => {
    while (probing) {
      const t0 = performance.now();
      const ok = await fetch(`${serve.url}/live`, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) }).then(
        (r) => r.status === 200,
        () => false,
      );
      const ms = performance.now() - t0;
      live.push(ms);
      if (!ok || ms > LIVE_BOUND_MS) {
        figures.hangs++;
        note(`/live ${ok ? `took ${Math.round(ms)} ms` : 'failed'}`);
      }
      await new Promise((r) => setTimeout(r, LIVE_INTERVAL_MS));
    }
  })();

  let next = 0;
  const statuses = new Map<number, number>();
  const client = async () => {
    while (Date.now() - started < CAMPAIGN_MS) {
      const c = cases[next++ % cases.length]!;
      const { target, telltale } = targetOf(c);
      if (telltale) telltales.push(telltale);
      figures.cases++;
      const answer = await rawGet(serve.port, target);
      const what = `${c.kind} ${c.place} ${c.bytes} B`;
      if (answer === 'hung' || answer === 'reset') {
        if (answer === 'hung') figures.hangs++;
        else figures.crashes++;
        note(`${what}: ${answer}`);
        continue;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500) {
        figures.crashes++;
        note(`${what}: ${answer.status} ${answer.body.slice(0, 200)}`);
      }
      // the image side's 404 names the redacted path (the assisted API's echoes the client's own, as upstream's does)
      if (c.place === 'segment' || c.place === 'query' || c.place === 'credential-route') {
        if (telltale && answer.body.includes(telltale)) {
          figures.wrongAcceptances++;
          note(`${what}: the planted secret is in the answer`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, () => client()));
  probing = false;
  await probe;

  if (serve.child.exitCode !== null) {
    figures.crashes++;
    note(`the service exited (${serve.child.exitCode})`);
  }
  // every base64url run of the log (a telltale sits between slashes or dots, so it is a whole run)
  const logged = new Set((await readFile(logPath, 'utf8')).match(/[A-Za-z0-9_-]{30,}/g) ?? []);
  for (const t of telltales)
    if (logged.has(t)) {
      figures.wrongAcceptances++;
      note(`a planted secret is in the log: ${t.slice(0, 6)}…`);
    }

  live.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(live[Math.min(live.length - 1, Math.floor(live.length * p))] ?? 0);
  recordFigures({
    category: 'hostile-paths',
    cases: figures.cases,
    crashes: figures.crashes,
    hangs: figures.hangs,
    wrongAcceptances: figures.wrongAcceptances,
    dataLost: 0,
    notes: `${CLIENTS} clients, ${TARGET_BYTES[0] / 1024}–${TARGET_BYTES[1] / 1024} KB targets, ${Math.round((Date.now() - started) / 1000)} s, answers ${[...statuses].map(([s, n]) => `${n}×${s}`).join(' ')}; /live ${live.length} probes: median ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms (bound ${LIVE_BOUND_MS} ms), load ${os.loadavg()[0]!.toFixed(1)}${notes.length ? `; ${notes.slice(0, 5).join('; ')}` : ''}`,
  });
  expect(notes).toEqual([]);
  expect(figures).toMatchObject({ crashes: 0, hangs: 0, wrongAcceptances: 0 });
  expect(telltales.length).toBeGreaterThan(0);
  expect(live.length).toBeGreaterThan(10);
});
