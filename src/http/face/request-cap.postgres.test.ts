// MAX_CONCURRENT_REQUESTS (request-cap.ts, mounted by app.ts) over real loopback HTTP: the image
// role of the real service with a fake assisted-service upstream, a base ISO padded to 64 MiB so a
// client that stops reading really holds its stream, and clients that read slowly, abort, or
// see their source fail. Also the role with the assisted API in-process: the API is never refused.
// Then the fair share (issue 23, finding 1): clients bound to distinct loopback addresses, one
// address over MAX_CONCURRENT_REQUESTS_PER_ADDRESS while others are served, stalled streams
// preempted after PREEMPT_AFTER_MS by newcomers, and streams being read never preempted.
import { copyFile, mkdtemp, rm, truncate } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { type RunningService, startService } from '../../service.js';
import { type ArtifactSlotsStatus, CAP_RETRY_AFTER_SECONDS, PREEMPT_AFTER_MS } from './request-cap.js';
import {
  ID,
  type ImageService,
  type Reply,
  X86_ISO,
  request,
  startImageService,
} from '../../../test/support/image-service.js';
import {
  type StallMode,
  type StallingClient,
  serverSideCloses,
  stallingGet,
} from '../transport/test-support/stalling-clients.js';

/** Far more than loopback socket buffers hold, so a stalled client keeps its stream in flight. */
const PADDED_SIZE = 64 * 1024 ** 2;
/** Bound on polling /metrics for a slot to come back. */
const POLL_BOUND = 200;
const POLL_STEP_MS = 25;
const STORM = 60;
const PULL_SECRET = JSON.stringify({
  auths: { 'quay.io': { auth: Buffer.from('user:pass').toString('base64'), email: 'a@b.c' } },
});

async function paddedIso(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  await copyFile(X86_ISO, file);
  await truncate(file, PADDED_SIZE);
  return file;
}

interface Stalled {
  status: number;
  req: http.ClientRequest;
  res: http.IncomingMessage;
}

/** A GET whose client reads nothing after the headers (a slow reader holding its stream). */
function stalled(url: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.pause();
      resolve({ status: res.statusCode ?? 0, req, res });
    });
    req.on('error', reject);
  });
}

/** Reads the rest of a stalled body; resolves with the bytes received and whether it ended whole. */
function drain(s: Stalled): Promise<{ bytes: number; complete: boolean }> {
  return new Promise((resolve) => {
    let bytes = 0;
    s.res.on('data', (c: Buffer) => (bytes += c.length));
    s.res.on('end', () => resolve({ bytes, complete: s.res.complete }));
    s.res.on('error', () => resolve({ bytes, complete: false }));
    s.res.on('aborted', () => resolve({ bytes, complete: false }));
    s.res.resume();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The sum of `name`'s samples; `name{label="value"}` picks one label value. */
async function metricValue(base: string, name: string): Promise<number> {
  const text = (await request(`${base}/metrics`)).body.toString();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || (!name.includes('{') && line.startsWith(`${name}{`)))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function waitForMetric(base: string, name: string, value: number): Promise<void> {
  for (let i = 0; i < POLL_BOUND; i++) {
    if ((await metricValue(base, name)) === value) return;
    await new Promise((r) => setTimeout(r, POLL_STEP_MS));
  }
  throw new Error(`${name} never reached ${value} (now ${await metricValue(base, name)})`);
}

const IN_FLIGHT = 'bootsmith_artifact_requests_in_flight';
const REFUSED = 'bootsmith_artifact_requests_refused_total';
const LOOKUPS = 'bootsmith_ignition_lookups_total';

describe('MAX_CONCURRENT_REQUESTS on the image side', () => {
  let running: ImageService;
  let base: string;
  let isoFile: string;
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'request-cap-'));
    isoFile = await paddedIso(scratch, 'padded.iso');
    running = await startImageService({
      osImages: [{ openshift_version: '4.17', cpu_architecture: 'x86_64', url: isoFile, version: '417.94.1' }],
      env: { MAX_CONCURRENT_REQUESTS: '2' },
    });
    base = running.base;
  });
  afterAll(async () => {
    await running?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const isoUrl = () => `${base}/images/${ID}?version=4.17&arch=x86_64&type=full-iso`;
  const byidUrl = () => `${base}/byid/${ID}/4.17/x86_64/full.iso`;

  it('refuses a third artifact request with 503 + Retry-After and no work while two streams are held', async () => {
    expect(await metricValue(base, 'bootsmith_artifact_requests_limit')).toBe(2);
    const first = await stalled(isoUrl());
    const second = await stalled(byidUrl());
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await metricValue(base, IN_FLIGHT)).toBe(2);

    const upstreamCalls = running.upstream.seen.length;
    const lookups = await metricValue(base, LOOKUPS);
    const refusedBefore = await metricValue(base, REFUSED);

    const refused = await request(`${base}/bytoken/whatever/4.17/x86_64/full.iso`);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(CAP_RETRY_AFTER_SECONDS));
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(refused.body.toString())).toMatchObject({ code: 503 });
    expect(JSON.parse(refused.body.toString()).message).toContain('MAX_CONCURRENT_REQUESTS');
    const iso = await request(isoUrl(), { method: 'HEAD' });
    expect(iso.status).toBe(503);
    expect((await request(`${base}/images/${ID}/pxe-initrd?version=4.17&arch=x86_64`)).status).toBe(503);
    expect((await request(`${base}/boot-artifacts/kernel?version=4.17&arch=x86_64`)).status).toBe(503);

    // no Ignition lookup (neither cache hit nor miss) and no upstream call for any refused request
    expect(running.upstream.seen.length).toBe(upstreamCalls);
    expect(await metricValue(base, LOOKUPS)).toBe(lookups);
    expect(await metricValue(base, REFUSED)).toBe(refusedBefore + 4);

    // never refused by the cap
    expect((await request(`${base}/live`)).status).toBe(200);
    expect((await request(`${base}/health`)).status).toBe(200);
    expect((await request(`${base}/metrics`)).status).toBe(200);
    // the 404 for an unknown path outside the artifact routes is not a 503
    expect((await request(`${base}/nothing-here`)).status).toBe(404);

    // a stream that ends normally gives its slot back
    const whole = await drain(first);
    expect(whole).toEqual({ bytes: PADDED_SIZE, complete: true });
    await waitForMetric(base, IN_FLIGHT, 1);
    expect((await request(`${base}/boot-artifacts/kernel?version=4.17&arch=x86_64`)).status).toBe(200);

    // a client that aborts gives its slot back
    second.req.destroy();
    await waitForMetric(base, IN_FLIGHT, 0);
    const third = await stalled(isoUrl());
    const fourth = await stalled(isoUrl());
    expect([third.status, fourth.status]).toEqual([200, 200]);
    expect((await request(isoUrl(), { method: 'HEAD' })).status).toBe(503);
    third.req.destroy();
    fourth.req.destroy();
    await waitForMetric(base, IN_FLIGHT, 0);
    expect((await request(isoUrl(), { method: 'HEAD' })).status).toBe(200);
  });

  /** The settle wait (≤ 30 s) plus a hash of the small fixture ISO, on a loaded machine. */
  const INTEGRITY_RECHECK_BOUND_MS = 60_000;

  it('gives the slot back when the source fails mid-stream', async () => {
    const failing = await stalled(isoUrl());
    expect(failing.status).toBe(200);
    expect(await metricValue(base, IN_FLIGHT)).toBe(1);
    // The base file shrinks under the running stream: the read comes up short, the server fails it.
    const saved = path.join(scratch, 'saved.iso');
    await copyFile(isoFile, saved);
    await truncate(isoFile, 1024 ** 2);
    try {
      const outcome = await drain(failing);
      expect(outcome.complete).toBe(false);
      expect(outcome.bytes).toBeLessThan(PADDED_SIZE);
      await waitForMetric(base, IN_FLIGHT, 0);
    } finally {
      await copyFile(saved, isoFile);
    }
    // The file changed under the service twice: cache integrity holds it (503) until it has hashed
    // the restored bytes against the record (src/images/loader/compare-with-record.ts), then serves again.
    const kernel = `${base}/boot-artifacts/kernel?version=4.17&arch=x86_64`;
    const deadline = Date.now() + INTEGRITY_RECHECK_BOUND_MS;
    let status = (await request(kernel)).status;
    while (status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await request(kernel)).status;
    }
    expect(status).toBe(200);
  });

  it('leaks no slot after a storm of aborted requests', async () => {
    const refusedBefore = await metricValue(base, REFUSED);
    let answered = 0;
    let refusedSeen = 0;
    await Promise.all(
      Array.from(
        { length: STORM },
        (_, i) =>
          new Promise<void>((resolve) => {
            const req = http.get(i % 2 === 0 ? isoUrl() : byidUrl(), { agent: false }, (res) => {
              answered++;
              if (res.statusCode === 503) refusedSeen++;
              req.destroy(); // abort as soon as the headers are in
              resolve();
            });
            req.on('error', () => resolve());
            req.on('close', () => resolve());
            // every third request is aborted before any answer could come
            if (i % 3 === 0) setImmediate(() => req.destroy());
          }),
      ),
    );
    expect(answered).toBeGreaterThan(0);
    await waitForMetric(base, IN_FLIGHT, 0);
    expect(await metricValue(base, REFUSED)).toBeGreaterThanOrEqual(refusedBefore + refusedSeen);
    const a = await stalled(isoUrl());
    const b = await stalled(byidUrl());
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await request(isoUrl(), { method: 'HEAD' })).status).toBe(503);
    a.req.destroy();
    b.req.destroy();
    await waitForMetric(base, IN_FLIGHT, 0);
  });
});

describe('MAX_CONCURRENT_REQUESTS with the assisted API in-process', () => {
  let service: RunningService;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'request-cap-all-'));
    const isoFile = await paddedIso(dir, 'padded.iso');
    const config = loadConfig({
      LISTEN_PORT: '0',
      LISTEN_ADDRESS: '127.0.0.1',
      DATA_DIR: dir,
      AUTH_TYPE: 'none',
      MAX_CONCURRENT_REQUESTS: '1',
      OS_IMAGES: JSON.stringify([
        { openshift_version: '4.17', cpu_architecture: 'x86_64', url: isoFile, version: '417.94.1' },
      ]),
      ...(process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
    });
    service = await startService(config, createLogger('silent'), { defaultMetrics: false });
    await service.imagesLoaded;
  });
  afterAll(async () => {
    await service?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps answering the API, /live, /health and /metrics while every slot is taken', async () => {
    const base = service.url;
    const api = `${base}/api/assisted-install/v2`;
    const created = await fetch(`${api}/infra-envs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'capped', pull_secret: PULL_SECRET, openshift_version: '4.17' }),
    });
    expect(created.status).toBe(201);
    const infraEnv = (await created.json()) as { id: string; download_url: string };

    const held = await stalled(infraEnv.download_url);
    expect(held.status).toBe(200);
    expect(await metricValue(base, IN_FLIGHT)).toBe(1);
    const lookups = await metricValue(base, LOOKUPS);
    const refused = await request(infraEnv.download_url);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(CAP_RETRY_AFTER_SECONDS));
    expect(await metricValue(base, LOOKUPS)).toBe(lookups);

    const listed = await request(`${api}/infra-envs/${infraEnv.id}`);
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body.toString()).id).toBe(infraEnv.id);
    expect((await request(`${api}/infra-envs`)).status).toBe(200);
    expect((await request(`${base}/live`)).status).toBe(200);
    expect((await request(`${base}/health`)).status).toBe(200);
    expect((await request(`${base}/metrics`)).status).toBe(200);

    held.req.destroy();
    await waitForMetric(base, IN_FLIGHT, 0);
    expect((await request(infraEnv.download_url, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('fair artifact slots: a share per client address and preemption of streams that are behind', () => {
  const CAP = 4;
  const SHARE = 2;
  let running: ImageService;
  let base: string;
  let port: number;
  let scratch: string;
  let closedAt: (client: string) => Promise<number>;
  const open: StallingClient[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'request-cap-fair-'));
    const isoFile = await paddedIso(scratch, 'padded.iso');
    running = await startImageService({
      osImages: [{ openshift_version: '4.17', cpu_architecture: 'x86_64', url: isoFile, version: '417.94.1' }],
      env: {
        MAX_CONCURRENT_REQUESTS: String(CAP),
        MAX_CONCURRENT_REQUESTS_PER_ADDRESS: String(SHARE),
        ARTIFACT_MIN_PROGRESS_TIME: '1h', // only preemption frees slots here
      },
    });
    base = running.base;
    port = Number(new URL(base).port);
    closedAt = serverSideCloses(running.service.server);
  });
  afterEach(async () => {
    for (const client of open.splice(0)) client.destroy();
    await waitForMetric(base, IN_FLIGHT, 0);
  });
  afterAll(async () => {
    await running?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const byid = `/byid/${ID}/4.17/x86_64/full.iso`;
  const kernel = '/boot-artifacts/kernel?version=4.17&arch=x86_64';

  async function from(address: string, mode: StallMode = 'never-read', target = byid): Promise<StallingClient> {
    const client = await stallingGet({ port, path: target, localAddress: address, mode });
    open.push(client);
    return client;
  }

  /** A whole GET from `address` (a fresh connection bound to it). */
  function getFrom(address: string, target: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${base}${target}`, { agent: false, localAddress: address }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on('error', reject);
    });
  }

  async function slots(): Promise<ArtifactSlotsStatus> {
    const health = JSON.parse((await request(`${base}/health`)).body.toString()) as {
      artifact_slots: ArtifactSlotsStatus;
    };
    return health.artifact_slots;
  }

  it('refuses an address over its share while other addresses are served, and refuses at the cap when nobody is behind', async () => {
    const [a1, a2] = [await from('127.0.0.21'), await from('127.0.0.21')];
    expect([a1.status, a2.status]).toEqual([200, 200]);
    const refusedBefore = await metricValue(base, REFUSED);

    const over = await getFrom('127.0.0.21', kernel);
    expect(over.status).toBe(503);
    expect(over.headers['retry-after']).toBe(String(CAP_RETRY_AFTER_SECONDS));
    expect(JSON.parse(over.body.toString()).message).toContain(`MAX_CONCURRENT_REQUESTS_PER_ADDRESS=${SHARE}`);
    expect(await metricValue(base, `${REFUSED}{reason="address_share"}`)).toBe(1);

    // another address is served, whole
    const kernelFromB = await getFrom('127.0.0.22', kernel);
    expect(kernelFromB.status).toBe(200);
    expect(kernelFromB.body.length).toBe(Number(kernelFromB.headers['content-length']));
    const [b1, c1] = [await from('127.0.0.22'), await from('127.0.0.23')];
    expect([b1.status, c1.status]).toEqual([200, 200]);
    expect(await metricValue(base, IN_FLIGHT)).toBe(CAP);

    // every slot taken, none behind for PREEMPT_AFTER_MS yet: the cap refuses
    const atCap = await getFrom('127.0.0.24', kernel);
    expect(atCap.status).toBe(503);
    expect(JSON.parse(atCap.body.toString()).message).toContain(`MAX_CONCURRENT_REQUESTS=${CAP}`);
    expect(await metricValue(base, REFUSED)).toBe(refusedBefore + 2);
    expect(await metricValue(base, 'bootsmith_artifact_requests_saturated')).toBe(1);
    expect(await slots()).toMatchObject({
      in_flight: CAP,
      limit: CAP,
      per_address_limit: SHARE,
      busiest_address_in_flight: SHARE,
      saturated: true,
    });
    expect((await request(`${base}/health`)).status).toBe(200); // saturation is not unreadiness
  });

  it('gives the slot of a stream behind for 5 s and more to a newcomer: the same address’s first, else anyone’s', async () => {
    const stalled = [
      await from('127.0.0.31'),
      await from('127.0.0.31'),
      await from('127.0.0.32'),
      await from('127.0.0.33'),
    ];
    expect(stalled.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    await sleep(PREEMPT_AFTER_MS + 1_000);
    const cut = 'bootsmith_artifact_requests_cut_total{reason="preempted"}';
    const cutBefore = await metricValue(base, cut);

    // 127.0.0.31 at its share: one of its own stalled streams gives way, nobody else's
    const again = await from('127.0.0.31');
    expect(again.status).toBe(200);
    const ownVictim = await Promise.race(stalled.map((c, i) => closedAt(c.local).then(() => i)));
    expect(ownVictim === 0 || ownVictim === 1).toBe(true);
    expect(await metricValue(base, cut)).toBe(cutBefore + 1);

    // a newcomer from elsewhere at the cap: a stream behind for 5 s gives way, not the fresh one
    const others = stalled.filter((_, i) => i !== ownVictim);
    const newcomer = await getFrom('127.0.0.34', kernel);
    expect(newcomer.status).toBe(200);
    await Promise.race(others.map((c) => closedAt(c.local)));
    expect(await metricValue(base, cut)).toBe(cutBefore + 2);
    expect((await slots()).cut.preempted).toBe(cutBefore + 2);
    expect(again.received()).toBeGreaterThan(0);
    expect(await metricValue(base, IN_FLIGHT)).toBe(CAP - 1); // the newcomer's whole kernel is done
  });

  it('never preempts streams that are being read: at the cap with readers only, a newcomer is refused', async () => {
    // 1 MiB/s each: the 64 MiB ISO lasts longer than the test, and each shows progress every second or two
    const readers = [
      await from('127.0.0.41', { steady: 1024 ** 2 }),
      await from('127.0.0.42', { steady: 1024 ** 2 }),
      await from('127.0.0.43', { steady: 1024 ** 2 }),
      await from('127.0.0.44', { steady: 1024 ** 2 }),
    ];
    expect(readers.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    await sleep(PREEMPT_AFTER_MS + 1_000);
    const refused = await getFrom('127.0.0.45', kernel);
    expect(refused.status).toBe(503);
    for (const reader of readers) expect(reader.received()).toBeGreaterThan(2 * 1024 ** 2);
  });
});
