// GET|HEAD /boot-artifacts/{kernel|rootfs|initrd|ins-file} (boot-artifacts.ts) over loopback HTTP:
// the exact byte ranges of a real fixture ISO, ranged and whole, and the route's errors.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLiveIso } from '../../../iso/live-layout.js';
import type { LiveManifest } from '../../../iso/manifest.js';
import { type ImageService, X86_ISO, request, startImageService } from '../../../../test/support/image-service.js';

describe('boot artifact routes over HTTP', () => {
  let running: ImageService;
  let base: string;
  let x86Base: Buffer;
  let x86: LiveManifest;

  beforeAll(async () => {
    running = await startImageService();
    base = running.base;
    x86Base = await readFile(X86_ISO);
    x86 = await parseLiveIso(X86_ISO);
  });
  afterAll(async () => {
    await running?.close();
  });

  it.each([
    ['kernel', 'kernel'],
    ['rootfs', 'rootfs'],
    ['initrd', 'initrd'],
  ] as const)('serves boot-artifacts/%s as the exact bytes inside the ISO', async (name, field) => {
    const extent = x86.files[field]!;
    const reply = await request(`${base}/boot-artifacts/${name}?version=4.17&arch=x86_64`);
    expect(reply.status).toBe(200);
    expect(reply.body.equals(x86Base.subarray(extent.offset, extent.offset + extent.length))).toBe(true);
    const ranged = await request(`${base}/boot-artifacts/${name}?version=4.17&arch=x86_64`, {
      headers: { Range: 'bytes=-100' },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.body.equals(reply.body.subarray(-100))).toBe(true);
  });

  it('names the file after the artifact and answers HEAD without a body', async () => {
    const head = await request(`${base}/boot-artifacts/kernel?version=4.17&arch=x86_64`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-disposition']).toContain('vmlinuz');
    expect(head.headers['content-length']).toBe(String(x86.files.kernel!.length));
  });

  it.each([
    [`/boot-artifacts/bootx64?version=4.17`, 404, /unknown boot artifact/],
    [`/boot-artifacts/kernel`, 400, /'version' parameter required/],
    [`/boot-artifacts/kernel?version=4.17&arch=sparc`, 400, /unknown architecture/],
    [`/boot-artifacts/kernel?version=9.99`, 404, /no base image/],
    [`/boot-artifacts/kernel?version=4.18`, 503, /unusable/],
  ])('GET %s → %i', async (pathAndQuery, status, message) => {
    const reply = await request(base + pathAndQuery);
    expect(reply.status).toBe(status);
    const body = JSON.parse(reply.body.toString()) as { code: number; message: string };
    expect(body.code).toBe(status);
    expect(body.message).toMatch(message);
  });
});
