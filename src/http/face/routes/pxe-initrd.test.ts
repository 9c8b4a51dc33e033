// GET|HEAD /images/{id}/pxe-initrd and /images/{id}/s390x-initrd-addrsize (pxe-initrd.ts) over
// loopback HTTP: the base initrd from a real fixture ISO followed by the Ignition archive from a
// fake assisted-service, read back with our own cpio reader; the s390x addrsize; bad input.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInitrd } from '../../../initrd/initrd.js';
import { parseLiveIso } from '../../../iso/live-layout.js';
import type { LiveManifest } from '../../../iso/manifest.js';
import { FakeAssistedService } from '../../../../test/support/fake-assisted-service.js';
import {
  type ImageService,
  ID,
  IGNITION,
  S390X_ISO,
  X86_ISO,
  request,
  startImageService,
} from '../../../../test/support/image-service.js';

describe('PXE initrd routes over HTTP', () => {
  let running: ImageService;
  let base: string;
  let x86Base: Buffer;
  let x86: LiveManifest;
  let s390x: LiveManifest;

  beforeAll(async () => {
    running = await startImageService();
    base = running.base;
    x86Base = await readFile(X86_ISO);
    x86 = await parseLiveIso(X86_ISO);
    s390x = await parseLiveIso(S390X_ISO);
  });
  afterAll(async () => {
    await running?.close();
  });

  it('serves the pxe-initrd as the base initrd followed by the Ignition archive', async () => {
    const reply = await request(`${base}/images/${ID}/pxe-initrd?version=4.17&arch=x86_64`);
    expect(reply.status).toBe(200);
    const initrd = x86.files.initrd!;
    expect(
      reply.body.subarray(0, initrd.length).equals(x86Base.subarray(initrd.offset, initrd.offset + initrd.length)),
    ).toBe(true);
    expect(reply.body.length % 4).toBe(0);
    const members = await readInitrd(reply.body);
    const config = members.filter((m) => m.path === 'config.ign').at(-1);
    expect(config?.data.toString()).toBe(IGNITION);
    expect(members.length).toBeGreaterThan(1); // the base initrd's own members are still there
  });

  it('appends the upstream minimal-initrd after the Ignition archive', async () => {
    const { writeCpio } = await import('../../../initrd/cpio.js');
    const { compress } = await import('../../../initrd/compression.js');
    const other = '1a2b3c4d-0000-4000-8000-000000000001';
    const extra = new FakeAssistedService(other, IGNITION);
    extra.minimalInitrd = await compress(
      writeCpio([{ path: 'etc/assisted/network/host0/eth0.nmconnection', data: Buffer.from('[connection]\n') }]),
      'gzip',
    );
    const second = await startImageService({
      upstream: extra,
      osImages: [{ openshift_version: '4.17', cpu_architecture: 'x86_64', url: X86_ISO, version: '417.94.1' }],
    });
    try {
      const reply = await request(`${second.base}/images/${other}/pxe-initrd?version=4.17`);
      const paths = (await readInitrd(reply.body)).map((m) => m.path);
      expect(paths).toContain('config.ign');
      expect(paths).toContain('etc/assisted/network/host0/eth0.nmconnection');
    } finally {
      await second.close(); // stops `extra` too
    }
  });

  it('serves the s390x initrd.addrsize matching the customised initrd size', async () => {
    const initrd = await request(`${base}/images/${ID}/pxe-initrd?version=4.17&arch=s390x`);
    expect(initrd.status).toBe(200);
    const reply = await request(`${base}/images/${ID}/s390x-initrd-addrsize?version=4.17`);
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBe(16);
    const s390xBase = await readFile(S390X_ISO);
    const original = s390x.files.initrdAddrsize!;
    expect(reply.body.subarray(0, 8).equals(s390xBase.subarray(original.offset, original.offset + 8))).toBe(true);
    expect(reply.body.readBigUInt64BE(8)).toBe(BigInt(initrd.body.length));
  });

  it('answers HEAD with the length and ETag of GET and no body', async () => {
    const get = await request(`${base}/images/${ID}/pxe-initrd?version=4.17&arch=x86_64`);
    const head = await request(`${base}/images/${ID}/pxe-initrd?version=4.17&arch=x86_64`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect(head.headers.etag).toBe(get.headers.etag);
  });

  it.each([
    [`/images/not-a-uuid/pxe-initrd?version=4.17`, 400, /invalid image id/],
    [`/images/${ID}/pxe-initrd?version=4.17&arch=sparc`, 400, /unknown architecture/],
    [`/images/${ID}/pxe-initrd?version=9.99`, 404, /no base image/],
    [`/images/${ID}/pxe-initrd?version=4.18`, 503, /unusable/],
  ])('GET %s → %i', async (pathAndQuery, status, message) => {
    const reply = await request(base + pathAndQuery);
    expect(reply.status).toBe(status);
    const body = JSON.parse(reply.body.toString()) as { code: number; message: string };
    expect(body.code).toBe(status);
    expect(body.message).toMatch(message);
  });

  it('passes an upstream 401 through as 401', async () => {
    running.upstream.status = 401;
    try {
      expect((await request(`${base}/images/${ID}/pxe-initrd?version=4.17&api_key=wrong`)).status).toBe(401);
    } finally {
      running.upstream.status = 200;
    }
  });
});
