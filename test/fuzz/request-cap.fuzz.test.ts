// Fuzz category "request-cap": MAX_CONCURRENT_REQUESTS (src/http/face/request-cap.ts) under batches of
// concurrent artifact requests whose clients behave at random: abort before any answer, abort at
// the headers, read some bytes then abort, stall then abort, or read the whole body; GET or HEAD,
// over the ISO, PXE initrd and boot-artifact routes. The image role of the real service runs on
// loopback with a fake assisted-service and a base ISO padded to 16 MiB.
// A crash is a 5xx other than the cap's 503 (or a 503 without Retry-After). A hang is a batch whose
// clients do not settle within the bound, or an in-flight gauge that does not come back to 0 after
// a batch (a leaked slot). A wrong acceptance is an in-flight gauge above the cap, or a refused
// request that still cost an Ignition lookup.
//
// Then the attacks of issue 23 (finding 1), seeded, against a service with a per-address share and
// a short minimum-progress time, clients bound to distinct loopback addresses:
//   pin   one address opens more never-reading (or byte-a-second) streams than its share while
//         other addresses fetch the kernel and ISO ranges: the address gets at most its share and
//         every other client is answered (a refusal of one of them counts as a crash: an outage)
//   many  many addresses, each within its share, open never-reading (or byte-a-second) streams up
//         to and past the cap: the slots come back (in-flight gauge 0) within the minimum-progress
//         time plus slack (else a hang), and a well-behaved client is then served
import { copyFile, mkdtemp, rm, truncate } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ID, type ImageService, X86_ISO, request, startImageService } from '../support/image-service.js';
import {
  type StallMode,
  type StallingClient,
  stallingGet,
} from '../../src/http/transport/test-support/stalling-clients.js';
import { FUZZ_SEED, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';

const CAP = 3;
const BATCH = 12;
/** Far more than loopback socket buffers hold, so a stalled client holds its stream. */
const PADDED_SIZE = 16 * 1024 ** 2;
/** A batch of clients must settle within this. */
const BATCH_BOUND_MS = 20_000;
/** Polls of /metrics for the gauge to return to 0 after a batch. */
const SETTLE_POLLS = 200;
const SETTLE_STEP_MS = 25;

const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
const problems: string[] = [];
/** Answers seen by status (0: aborted before any answer): the clients must reach both sides of the cap. */
const statuses = new Map<number, number>();

type Behaviour = 'abort-early' | 'abort-at-headers' | 'read-some' | 'stall-then-abort' | 'read-all';
interface Case {
  route: 'iso' | 'byid' | 'pxe' | 'kernel';
  method: 'GET' | 'HEAD';
  behaviour: Behaviour;
  delayMs: number;
  bytes: number;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  route: fc.constantFrom('iso', 'byid', 'pxe', 'kernel'),
  method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
  behaviour: fc.constantFrom('abort-early', 'abort-at-headers', 'read-some', 'stall-then-abort', 'read-all'),
  delayMs: fc.nat(60),
  bytes: fc.nat(2 * 1024 ** 2),
});

let running: ImageService;
let scratch: string;
let iso: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'fuzz-request-cap-'));
  iso = path.join(scratch, 'padded.iso');
  await copyFile(X86_ISO, iso);
  await truncate(iso, PADDED_SIZE);
  running = await startImageService({
    osImages: [{ openshift_version: '4.17', cpu_architecture: 'x86_64', url: iso, version: '417.94.1' }],
    env: { MAX_CONCURRENT_REQUESTS: String(CAP) },
  });
});

afterAll(async () => {
  await running?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  recordFigures({
    category: 'request-cap',
    ...figures,
    notes: `cap ${CAP}, batches of ${BATCH} random clients; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${fairNotes.join('; ')}; ${problems.slice(0, 3).join('; ') || 'no problems'}`,
  });
});

function urlFor(c: Case): string {
  const base = running.base;
  switch (c.route) {
    case 'iso':
      return `${base}/images/${ID}?version=4.17&arch=x86_64&type=full-iso`;
    case 'byid':
      return `${base}/byid/${ID}/4.17/x86_64/full.iso`;
    case 'pxe':
      return `${base}/images/${ID}/pxe-initrd?version=4.17&arch=x86_64`;
    case 'kernel':
      return `${base}/boot-artifacts/kernel?version=4.17&arch=x86_64`;
  }
}

/** Runs one client; resolves with its status (0 when it aborted before an answer). */
function runClient(c: Case): Promise<{ status: number; retryAfter: boolean }> {
  return new Promise((resolve) => {
    let status = 0;
    let retryAfter = false;
    const done = () => resolve({ status, retryAfter });
    const req = http.request(urlFor(c), { method: c.method, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      retryAfter = res.headers['retry-after'] !== undefined;
      if (status !== 200 || c.behaviour === 'read-all') {
        res.resume();
        res.on('end', () => req.destroy());
        return;
      }
      if (c.behaviour === 'abort-at-headers') return void req.destroy();
      if (c.behaviour === 'stall-then-abort') {
        res.pause();
        return void setTimeout(() => req.destroy(), c.delayMs);
      }
      // read-some (or abort-early that got its answer first): read `bytes`, then abort
      let got = 0;
      res.on('data', (chunk: Buffer) => {
        got += chunk.length;
        if (got >= c.bytes) req.destroy();
      });
      res.on('end', () => req.destroy());
    });
    req.on('error', () => undefined);
    req.on('close', done);
    if (c.behaviour === 'abort-early') setTimeout(() => req.destroy(), c.delayMs);
    req.end();
  });
}

async function metric(name: string, base = running.base): Promise<number> {
  const text = (await request(`${base}/metrics`)).body.toString();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

it('frees every slot, never admits past the cap and refuses without work, whatever the clients do', async () => {
  const cases = fc.sample(caseArb, { numRuns: fuzzRuns(120), seed: FUZZ_SEED });
  for (let start = 0; start < cases.length; start += BATCH) {
    const batch = cases.slice(start, start + BATCH);
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await metric('bootsmith_artifact_requests_in_flight'));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), BATCH_BOUND_MS)));
    const outcome = await Promise.race([Promise.all(batch.map(runClient)), bound]);
    clearTimeout(timer);
    sampling = false;
    await sampler;
    figures.cases += batch.length;
    if (outcome === 'hang') {
      figures.hangs++;
      problems.push(`batch at ${start} did not settle within ${BATCH_BOUND_MS} ms`);
      continue;
    }
    outcome.forEach((r, i) => {
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status >= 500 && !(r.status === 503 && r.retryAfter)) {
        figures.crashes++;
        problems.push(`${JSON.stringify(batch[i])} answered ${r.status}`);
      }
    });
    if (peak > CAP) {
      figures.wrongAcceptances++;
      problems.push(`in-flight gauge reached ${peak} with a cap of ${CAP}`);
    }
    let inFlight = await metric('bootsmith_artifact_requests_in_flight');
    for (let i = 0; i < SETTLE_POLLS && inFlight !== 0; i++) {
      await new Promise((r) => setTimeout(r, SETTLE_STEP_MS));
      inFlight = await metric('bootsmith_artifact_requests_in_flight');
    }
    if (inFlight !== 0) {
      figures.hangs++;
      problems.push(`after batch at ${start}: ${inFlight} slots still taken`);
    }
  }

  // With the cap full, a refused request costs no Ignition lookup.
  const held = await Promise.all(
    Array.from(
      { length: CAP },
      () =>
        new Promise<http.ClientRequest>((resolve) => {
          const req = http.get(urlFor({ route: 'iso' } as Case), { agent: false }, (res) => {
            res.pause();
            resolve(req);
          });
          req.on('error', () => undefined);
        }),
    ),
  );
  const lookups = await metric('bootsmith_ignition_lookups_total');
  const refused = await request(urlFor({ route: 'byid' } as Case));
  if (refused.status !== 503 || (await metric('bootsmith_ignition_lookups_total')) !== lookups) {
    figures.wrongAcceptances++;
    problems.push(`with the cap full: ${refused.status}, Ignition lookups ${lookups} → more`);
  }
  for (const req of held) req.destroy();

  expect(problems).toEqual([]);
  expect(statuses.get(200)).toBeGreaterThan(0);
  expect(statuses.get(503)).toBeGreaterThan(0);
  expect(figures.cases).toBe(cases.length);
});

/** The fair-share service: a small cap, a share of a quarter of it, a 2 s minimum-progress time. */
const FAIR = { cap: 12, share: 3, windowMs: 2_000 };
/** The progress rule samples at a tenth of its time; the rest is event-loop delay on a loaded machine. */
const FREED_SLACK_MS = 3_000;
const fairNotes: string[] = [];

type Attack =
  | { kind: 'pin'; streams: number; mode: StallMode; others: number }
  | { kind: 'many'; addresses: number; each: number; mode: StallMode };

const pinArb: fc.Arbitrary<Attack> = fc.record({
  kind: fc.constant('pin' as const),
  streams: fc.integer({ min: FAIR.share + 1, max: FAIR.cap * 2 }),
  mode: fc.constantFrom<StallMode>('never-read', 'byte-per-second'),
  others: fc.integer({ min: 2, max: 6 }),
});
const manyArb: fc.Arbitrary<Attack> = fc.record({
  kind: fc.constant('many' as const),
  addresses: fc.integer({ min: 4, max: 12 }),
  each: fc.integer({ min: 1, max: FAIR.share }),
  mode: fc.constantFrom<StallMode>('never-read', 'byte-per-second'),
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

it('keeps serving other addresses while one pins slots, and frees slots held by many non-readers in time', async () => {
  const fair = await startImageService({
    osImages: [{ openshift_version: '4.17', cpu_architecture: 'x86_64', url: iso, version: '417.94.1' }],
    env: {
      MAX_CONCURRENT_REQUESTS: String(FAIR.cap),
      MAX_CONCURRENT_REQUESTS_PER_ADDRESS: String(FAIR.share),
      ARTIFACT_MIN_PROGRESS_TIME: `${FAIR.windowMs}ms`,
    },
  });
  const port = Number(new URL(fair.base).port);
  const kernel = `/boot-artifacts/kernel?version=4.17&arch=x86_64`;
  const byid = `/byid/${ID}/4.17/x86_64/full.iso`;
  // as many of each kind, alternating
  const pins = fc.sample(pinArb, { numRuns: fuzzRuns(3), seed: FUZZ_SEED });
  const manies = fc.sample(manyArb, { numRuns: fuzzRuns(3), seed: FUZZ_SEED });
  const attacks = pins.flatMap((pin, i) => [pin, manies[i]!]);
  let freedWorstMs = 0;
  let othersServed = 0;
  /** A GET from `address`; its status (0 when it failed). */
  const getFrom = (address: string, target: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve) => {
      const req = http.get(`${fair.base}${target}`, { agent: false, localAddress: address, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      });
      req.on('error', () => resolve(0));
    });
  try {
    for (const [n, attack] of attacks.entries()) {
      figures.cases++;
      const held: StallingClient[] = [];
      const addressOf = (i: number) => `127.0.${10 + n}.${i + 1}`;
      try {
        if (attack.kind === 'pin') {
          for (let i = 0; i < attack.streams; i++)
            held.push(await stallingGet({ port, path: byid, localAddress: '127.0.9.1', mode: attack.mode }));
          const admitted = held.filter((c) => c.status === 200).length;
          if (admitted > FAIR.share) {
            figures.wrongAcceptances++;
            problems.push(`${JSON.stringify(attack)}: one address got ${admitted} slots (share ${FAIR.share})`);
          }
          for (let i = 0; i < attack.others; i++) {
            const statuses = [
              await getFrom(addressOf(i), kernel),
              await getFrom(addressOf(i), byid, { Range: 'bytes=0-65535' }),
            ];
            othersServed += statuses.length;
            if (statuses[0] !== 200 || statuses[1] !== 206) {
              figures.crashes++;
              problems.push(
                `${JSON.stringify(attack)}: ${addressOf(i)} answered ${statuses.join('/')} while one address pinned slots`,
              );
            }
          }
        } else {
          const opened = await Promise.all(
            Array.from({ length: attack.addresses * attack.each }, (_, i) =>
              stallingGet({ port, path: byid, localAddress: addressOf(i % attack.addresses), mode: attack.mode }),
            ),
          );
          held.push(...opened);
          const allOpen = performance.now();
          const admitted = held.filter((c) => c.status === 200).length;
          if (admitted > FAIR.cap) {
            figures.wrongAcceptances++;
            problems.push(`${JSON.stringify(attack)}: ${admitted} admitted with a cap of ${FAIR.cap}`);
          }
          let inFlight = await metric('bootsmith_artifact_requests_in_flight', fair.base);
          while (inFlight > 0 && performance.now() - allOpen < FAIR.windowMs + FREED_SLACK_MS) {
            await sleep(50);
            inFlight = await metric('bootsmith_artifact_requests_in_flight', fair.base);
          }
          freedWorstMs = Math.max(freedWorstMs, performance.now() - allOpen);
          if (inFlight > 0) {
            figures.hangs++;
            problems.push(
              `${JSON.stringify(attack)}: ${inFlight} slots still held ${FAIR.windowMs + FREED_SLACK_MS} ms after the streams stalled`,
            );
          }
          const after = await getFrom('127.0.8.1', kernel);
          othersServed++;
          if (after !== 200) {
            figures.crashes++;
            problems.push(`${JSON.stringify(attack)}: a well-behaved client answered ${after} after the attack`);
          }
        }
      } finally {
        for (const client of held) client.destroy();
      }
      let inFlight = await metric('bootsmith_artifact_requests_in_flight', fair.base);
      for (let i = 0; i < SETTLE_POLLS && inFlight !== 0; i++) {
        await sleep(SETTLE_STEP_MS);
        inFlight = await metric('bootsmith_artifact_requests_in_flight', fair.base);
      }
      if (inFlight !== 0) {
        figures.hangs++;
        problems.push(`after ${JSON.stringify(attack)}: ${inFlight} slots still taken`);
      }
    }
    const refusedByShare = await metric('bootsmith_artifact_requests_refused_total{reason="address_share"}', fair.base);
    const cut = await metric('bootsmith_artifact_requests_cut_total{reason="min_progress"}', fair.base);
    fairNotes.push(
      `fair share (cap ${FAIR.cap}, ${FAIR.share} per address, ${FAIR.windowMs} ms progress time): ${attacks.length} attacks (${attacks.filter((a) => a.kind === 'pin').length} pin, ${attacks.filter((a) => a.kind === 'many').length} many), ${othersServed} requests of others served, ${refusedByShare} refused by the share, ${cut} cut for too little progress, slots free at worst ${Math.round(freedWorstMs)} ms after the streams stalled`,
    );
    expect(problems).toEqual([]);
    expect(refusedByShare).toBeGreaterThan(0);
  } finally {
    await fair.close();
  }
});
