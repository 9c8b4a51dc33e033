// GET /live, /health and /ready (health.ts) over loopback HTTP on the real image service:
// every image's state and reason, readiness as the status code, and no caching.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImageService, request, startImageService } from '../../../../test/support/image-service.js';

describe('health routes over HTTP', () => {
  let running: ImageService;
  let base: string;

  beforeAll(async () => {
    running = await startImageService();
    base = running.base;
  });
  afterAll(async () => {
    await running?.close();
  });

  it('reports every image state on /health, with the reason of a failed one', async () => {
    const health = await request(`${base}/health`);
    expect(health.status).toBe(200);
    expect(health.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(health.body.toString()) as {
      status: string;
      images: Array<{ state: string; reason?: string }>;
    };
    expect(body.status).toBe('ok');
    expect(body.images.map((i) => i.state)).toEqual(['ready', 'ready', 'failed', 'ready']);
    expect(body.images[2]!.reason).toMatch(/missing\.iso/);
  });

  it('answers /ready like /health', async () => {
    const health = JSON.parse((await request(`${base}/health`)).body.toString()) as unknown;
    const ready = await request(`${base}/ready`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body.toString())).toEqual(health);
  });

  it('answers /live with 200 and a small JSON body', async () => {
    const live = await request(`${base}/live`);
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body.toString())).toEqual({ status: 'ok' });
  });
});

describe('health routes with no usable base image', () => {
  let running: ImageService;

  beforeAll(async () => {
    running = await startImageService({
      osImages: [
        {
          openshift_version: '4.18',
          cpu_architecture: 'x86_64',
          url: path.join('/nonexistent', 'missing.iso'),
          version: '418.94.1',
        },
      ],
    });
  });
  afterAll(async () => {
    await running?.close();
  });

  it('/health is 503 and says why, while /live stays 200', async () => {
    const health = await request(`${running.base}/health`);
    expect(health.status).toBe(503);
    const body = JSON.parse(health.body.toString()) as {
      status: string;
      images: Array<{ state: string; reason?: string }>;
    };
    expect(body.status).toBe('no base image is ready');
    expect(body.images).toHaveLength(1);
    expect(body.images[0]!.state).toBe('failed');
    expect(body.images[0]!.reason).toMatch(/missing\.iso/);
    expect((await request(`${running.base}/live`)).status).toBe(200);
  });
});
