// MAX_CONCURRENT_REQUESTS (request-cap.ts, mounted by app.ts) over real loopback HTTP: the image
// role of the real service with a fake assisted-service upstream, a base ISO padded to 64 MiB so a
// client that stops reading really holds its stream, and clients that read slowly, abort, or
// see their source fail. Also the role with the assisted API in-process: the API is never refused.
import { copyFile, mkdtemp, rm, truncate } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { type RunningService, startService } from '../service.js';
import { CAP_RETRY_AFTER_SECONDS } from './request-cap.js';
import { ID, type ImageService, X86_ISO, request, startImageService } from './test-support/image-service.js';

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

async function metricValue(base: string, name: string): Promise<number> {
  const text = (await request(`${base}/metrics`)).body.toString();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
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
    expect((await request(`${base}/boot-artifacts/kernel?version=4.17&arch=x86_64`)).status).toBe(200);
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
