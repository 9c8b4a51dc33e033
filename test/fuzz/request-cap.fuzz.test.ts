// Fuzz category "request-cap": MAX_CONCURRENT_REQUESTS (src/http/request-cap.ts) under batches of
// concurrent artifact requests whose clients behave at random: abort before any answer, abort at
// the headers, read some bytes then abort, stall then abort, or read the whole body; GET or HEAD,
// over the ISO, PXE initrd and boot-artifact routes. The image role of the real service runs on
// loopback with a fake assisted-service and a base ISO padded to 16 MiB.
// A crash is a 5xx other than the cap's 503 (or a 503 without Retry-After). A hang is a batch whose
// clients do not settle within the bound, or an in-flight gauge that does not come back to 0 after
// a batch (a leaked slot). A wrong acceptance is an in-flight gauge above the cap, or a refused
// request that still cost an Ignition lookup.
import { copyFile, mkdtemp, rm, truncate } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ID,
  type ImageService,
  X86_ISO,
  request,
  startImageService,
} from '../../src/http/test-support/image-service.js';
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

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'fuzz-request-cap-'));
  const iso = path.join(scratch, 'padded.iso');
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
    notes: `cap ${CAP}, batches of ${BATCH} random clients; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${problems.slice(0, 3).join('; ') || 'no problems'}`,
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

async function metric(name: string): Promise<number> {
  const text = (await request(`${running.base}/metrics`)).body.toString();
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
