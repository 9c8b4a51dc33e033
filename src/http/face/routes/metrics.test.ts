// GET /metrics (metrics.ts) over loopback HTTP on the real image service: the Prometheus text
// exposition, and that serving an ISO shows up in its counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImageService, ID, request, startImageService } from '../../../../test/support/image-service.js';

describe('metrics route over HTTP', () => {
  let running: ImageService;
  let base: string;

  beforeAll(async () => {
    running = await startImageService();
    base = running.base;
  });
  afterAll(async () => {
    await running?.close();
  });

  it('is Prometheus text', async () => {
    const reply = await request(`${base}/metrics`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(reply.body.toString()).toMatch(/^# HELP bootsmith_/m);
  });

  it('counts bytes served, the Ignition cache hit of a repeated request and the upstream round', async () => {
    const iso = await request(`${base}/images/${ID}?version=4.17&arch=x86_64&type=full-iso`);
    expect(iso.status).toBe(200);
    expect(
      (await request(`${base}/images/${ID}?version=4.17&arch=x86_64&type=full-iso`, { method: 'HEAD' })).status,
    ).toBe(200);
    const metrics = (await request(`${base}/metrics`)).body.toString();
    const served = /bootsmith_bytes_served_total\{artifact="full-iso"\} (\d+)/.exec(metrics);
    expect(Number(served?.[1])).toBeGreaterThanOrEqual(iso.body.length);
    expect(metrics).toMatch(/bootsmith_ignition_lookups_total\{result="hit"\} [1-9]\d*/);
    expect(metrics).toMatch(/bootsmith_upstream_request_duration_seconds_count\{endpoint="discovery-ignition"/);
    expect(metrics).toMatch(/bootsmith_streams_in_flight\{artifact="full-iso"\} 0/);
  });
});
