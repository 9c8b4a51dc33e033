// The image side end to end over loopback HTTP: real fixture ISOs, the real range layer,
// a fake assisted-service upstream (remote Ignition source), and independent readers
// (xorriso, gzip, cpio) for what ends up in the downloaded bytes.
import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, PACKAGE_ROOT, loadConfig } from '../config.js';
import { readEmbedArea } from '../initrd/embed-archive.js';
import { readInitrd } from '../initrd/initrd.js';
import { parseLiveIso } from '../iso/live-layout.js';
import type { LiveManifest } from '../iso/manifest.js';
import { createLogger } from '../logger.js';
import { type RunningService, startService } from '../service.js';
import { FakeAssistedService } from '../test-support/fake-assisted-service.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
const IGNITION = JSON.stringify({ ignition: { version: '3.1.0' }, passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA test'] }] } });
const X86_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64.iso');
const S390X_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 's390x.iso');
const MINISO_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64-miniso.iso');
/** sha256 of the minimal ISO that MINISO_ISO's coreos/miniso.dat rebuilds (fixtures/README.md). */
const MINIMAL_SHA256 = 'ebdbe45944929bc56147c8d3a7dce7ad7a4ef453ec84b6de14d4c7174a337bec';
const hasXorriso = spawnSync('xorriso', ['-version']).status === 0;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function request(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: keepAlive }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 16 });

describe('image side over HTTP', () => {
  const upstream = new FakeAssistedService(ID, IGNITION);
  let service: RunningService;
  let base: string;
  let x86Base: Buffer;
  let x86: LiveManifest;
  let s390x: LiveManifest;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'image-routes-'));
    await upstream.start();
    const config: Config = loadConfig(
      {
        LISTEN_PORT: '0',
        LISTEN_ADDRESS: '127.0.0.1',
        DATA_DIR: dir,
        ASSISTED_SERVICE_URL: upstream.url,
        OS_IMAGES: JSON.stringify([
          { openshift_version: '4.17', cpu_architecture: 'x86_64', url: `file://${X86_ISO}`, version: '417.94.1' },
          { openshift_version: '4.17', cpu_architecture: 's390x', url: S390X_ISO, version: '417.94.1' },
          { openshift_version: '4.18', cpu_architecture: 'x86_64', url: path.join(dir, 'missing.iso'), version: '418.94.1' },
          { openshift_version: '4.16', cpu_architecture: 'x86_64', url: MINISO_ISO, version: '416.94.1' },
        ]),
      },
      ['--role', 'image'],
    );
    service = await startService(config, createLogger('silent'), { defaultMetrics: false });
    await service.imagesLoaded;
    base = service.url;
    x86Base = await readFile(X86_ISO);
    x86 = await parseLiveIso(X86_ISO);
    s390x = await parseLiveIso(S390X_ISO);
  });
  afterAll(async () => {
    await service?.close();
    await upstream.stop();
    keepAlive.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const isoUrl = () => `${base}/images/${ID}?version=4.17&arch=x86_64&type=full-iso`;

  describe('discovery ISO', () => {
    let full: Reply;
    beforeAll(async () => {
      full = await request(isoUrl());
    });

    it('is served whole with the HTTP headers every client needs', () => {
      expect(full.status).toBe(200);
      expect(full.headers['content-length']).toBe(String(x86Base.length));
      expect(full.headers['transfer-encoding']).toBeUndefined();
      expect(full.headers['accept-ranges']).toBe('bytes');
      expect(full.headers['content-type']).toBe('application/octet-stream');
      expect(full.headers['content-disposition']).toContain(`${ID}-discovery.iso`);
      expect(full.headers.etag).toMatch(/^"[^"]+"$/);
      // the later of the base image's mtime and the upstream's Last-Modified for the Ignition
      const upstreamModified = new Date('2026-11-03T10:00:00.000Z');
      const baseModified = statSync(X86_ISO).mtime;
      const expected = baseModified > upstreamModified ? baseModified : upstreamModified;
      expect(full.headers['last-modified']).toBe(new Date(Math.floor(expected.getTime() / 1000) * 1000).toUTCString());
      expect(full.body.length).toBe(x86Base.length);
    });

    it('carries the Ignition config in the embed area, zero padded, readable by our reader', async () => {
      const area = full.body.subarray(x86.ignition.offset, x86.ignition.offset + x86.ignition.length);
      const contents = await readEmbedArea(area);
      expect(contents.ignition?.toString()).toBe(IGNITION);
    });

    it.skipIf(!hasXorriso)('carries the Ignition config readable by xorriso + gzip + cpio', async () => {
      const work = await mkdtemp(path.join(dir, 'xorriso-'));
      await writeFile(path.join(work, 'd.iso'), full.body);
      execFileSync('xorriso', ['-osirrox', 'on', '-indev', 'd.iso', '-extract', '/images/ignition.img', 'ignition.img'], { cwd: work, stdio: 'ignore' });
      // gzip stops at the end of the member and only warns about the zero padding after it
      execFileSync('sh', ['-c', 'gzip -dc < ignition.img 2>/dev/null | cpio -idm --quiet; true'], { cwd: work });
      expect(await readFile(path.join(work, 'config.ign'), 'utf8')).toBe(IGNITION);
    });

    it('carries the InfraEnv kernel arguments appended to the defaults in every kargs area', () => {
      const kargs = x86.kargs!;
      const expected = `${kargs.default} console=ttyS0 rd.debug`;
      for (const location of kargs.locations) {
        const area = full.body.subarray(location.offset, location.offset + kargs.size).toString('latin1');
        expect(area.startsWith(`${expected}${kargs.end}`)).toBe(true);
        expect(area.slice(expected.length + kargs.end.length)).toBe(kargs.pad.repeat(kargs.size - expected.length - kargs.end.length));
      }
    });

    it('leaves every byte outside the embed areas equal to the base ISO', () => {
      const covered = new Uint8Array(x86Base.length);
      covered.fill(1, x86.ignition.offset, x86.ignition.offset + x86.ignition.length);
      for (const l of x86.kargs!.locations) covered.fill(1, l.offset, l.offset + x86.kargs!.size);
      let differing = 0;
      for (let i = 0; i < x86Base.length; i++) if (!covered[i] && full.body[i] !== x86Base[i]) differing++;
      expect(differing).toBe(0);
    });

    it('answers HEAD with the same headers as GET and no body', async () => {
      const head = await request(isoUrl(), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const name of ['content-length', 'etag', 'last-modified', 'accept-ranges', 'content-type', 'content-disposition']) {
        expect(head.headers[name], name).toBe(full.headers[name]);
      }
    });

    it('serves the same bytes and ETag at the path-style BMC URL', async () => {
      const byid = await request(`${base}/byid/${ID}/4.17/x86_64/full.iso`);
      expect(byid.status).toBe(200);
      expect(byid.headers.etag).toBe(full.headers.etag);
      expect(byid.body.equals(full.body)).toBe(true);
      const byVersion = await request(`${base}/byid/${ID}/417.94.1/amd64/full.iso`, { method: 'HEAD' });
      expect(byVersion.headers.etag).toBe(full.headers.etag);
    });

    it('answers a BMC-style storm of 1000 range requests from one upstream round', async () => {
      upstream.seen = [];
      const url = `${base}/byapikey/${fakeJwt({ infra_env_id: ID })}/4.17/x86_64/full.iso`;
      const head = await request(url, { method: 'HEAD' });
      const size = Number(head.headers['content-length']);
      let state = 7;
      const random = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
      for (let batch = 0; batch < 50; batch++) {
        await Promise.all(
          Array.from({ length: 20 }, async () => {
            const start = Math.floor(random() * size);
            const end = Math.min(size - 1, start + Math.floor(random() * 300_000));
            const reply = await request(url, { headers: { Range: `bytes=${start}-${end}`, 'If-Range': head.headers.etag! } });
            expect(reply.status).toBe(206);
            expect(reply.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
            expect(reply.body.equals(full.body.subarray(start, end + 1))).toBe(true);
          }),
        );
      }
      expect(upstream.seen.length).toBe(3); // discovery.ign + infra-env + minimal-initrd, once
      expect(upstream.seen.every((s) => s.query.get('api_key') !== null)).toBe(true);
    });

    it('answers a multi-range request with an exact multipart/byteranges body of the spliced bytes', async () => {
      const area = x86.ignition.offset;
      const ranges: Array<[number, number]> = [[0, 99], [area - 10, area + 70_000], [x86Base.length - 5, x86Base.length - 1]];
      const reply = await request(isoUrl(), { headers: { Range: `bytes=${ranges.map(([a, b]) => `${a}-${b}`).join(',')}` } });
      expect(reply.status).toBe(206);
      const boundary = /boundary=([^;]+)/.exec(reply.headers['content-type']!)![1]!;
      expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
      const parts = reply.body.toString('latin1').split(`--${boundary}`).slice(1, -1);
      expect(parts).toHaveLength(3);
      parts.forEach((part, i) => {
        const [start, wantedEnd] = ranges[i]!;
        const end = Math.min(wantedEnd, x86Base.length - 1);
        expect(part).toContain(`Content-Range: bytes ${start}-${end}/${x86Base.length}`);
        const body = Buffer.from(part.slice(part.indexOf('\r\n\r\n') + 4, -2), 'latin1');
        expect(body.equals(full.body.subarray(start, end + 1)), `part ${i}`).toBe(true);
      });
    });

    it('answers 416 with Content-Range for a range past the end, and 200 for a malformed one', async () => {
      const past = await request(isoUrl(), { headers: { Range: `bytes=${x86Base.length}-` } });
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${x86Base.length}`);
      const malformed = await request(isoUrl(), { headers: { Range: 'bytes=oops' }, method: 'HEAD' });
      expect(malformed.status).toBe(200);
    });

    it('answers 304 to If-None-Match with the current ETag', async () => {
      const reply = await request(isoUrl(), { headers: { 'If-None-Match': full.headers.etag! } });
      expect(reply.status).toBe(304);
      expect(reply.body.length).toBe(0);
    });
  });

  describe('minimal ISO', () => {
    it('is the byte-exact minimal ISO from miniso.dat with Ignition, rootfs_url and kargs spliced in', async () => {
      const url = `${base}/byid/${ID}/4.16/x86_64/minimal.iso`;
      let reply = await request(url);
      for (let i = 0; i < 100 && reply.status === 503; i++) {
        await new Promise((r) => setTimeout(r, 100)); // the minimal ISO is rebuilt in the background once
        reply = await request(url);
      }
      expect(reply.status).toBe(200);
      const rebuilt = path.join(dir, 'minimal-rebuilt.iso');
      const { rebuildMinimalIso } = await import('../iso/miniso/miniso.js');
      const result = await rebuildMinimalIso(MINISO_ISO, await parseLiveIso(MINISO_ISO), rebuilt);
      expect(result.sha256).toBe(MINIMAL_SHA256);
      const minimal = await parseLiveIso(rebuilt);
      const minimalBytes = await readFile(rebuilt);
      expect(reply.body.length).toBe(minimalBytes.length);

      const contents = await readEmbedArea(reply.body.subarray(minimal.ignition.offset, minimal.ignition.offset + minimal.ignition.length));
      expect(contents.ignition?.toString()).toBe(IGNITION);
      const rootfsUrl = `${base}/boot-artifacts/rootfs?arch=x86_64&version=4.16`;
      const kargs = minimal.kargs!;
      for (const location of kargs.locations) {
        const area = reply.body.subarray(location.offset, location.offset + kargs.size).toString('latin1');
        expect(area).not.toContain('coreos.liveiso=');
        expect(area).toContain(`coreos.live.rootfs_url="${rootfsUrl}"`);
        expect(area).toContain(' console=ttyS0 rd.debug\n');
      }
      // everything but the embed area, the kargs areas and kargs.json is the rebuilt minimal ISO
      const patched = new Uint8Array(minimalBytes.length);
      patched.fill(1, minimal.ignition.offset, minimal.ignition.offset + minimal.ignition.length);
      for (const l of kargs.locations) patched.fill(1, l.offset, l.offset + kargs.size);
      let differing = 0;
      for (let i = 0; i < minimalBytes.length; i++) if (!patched[i] && reply.body[i] !== minimalBytes[i]) differing++;
      expect(differing).toBeLessThanOrEqual(4096); // kargs.json (its `default` rewritten in place) and nothing else
      expect(reply.body.toString('latin1')).not.toContain('coreos.liveiso=fedora');

      const rootfs = await request(rootfsUrl);
      expect(rootfs.status).toBe(200);
    });

    it('answers 400 for a base image without miniso.dat', async () => {
      const reply = await request(`${base}/byid/${ID}/4.17/x86_64/minimal.iso`);
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body.toString()).message).toMatch(/miniso\.dat/);
    });
  });

  describe('PXE artifacts', () => {
    it('serves the pxe-initrd as the base initrd followed by the Ignition archive', async () => {
      const reply = await request(`${base}/images/${ID}/pxe-initrd?version=4.17&arch=x86_64`);
      expect(reply.status).toBe(200);
      const initrd = x86.files.initrd!;
      expect(reply.body.subarray(0, initrd.length).equals(x86Base.subarray(initrd.offset, initrd.offset + initrd.length))).toBe(true);
      expect(reply.body.length % 4).toBe(0);
      const members = await readInitrd(reply.body);
      const config = members.filter((m) => m.path === 'config.ign').at(-1);
      expect(config?.data.toString()).toBe(IGNITION);
      expect(members.length).toBeGreaterThan(1); // the base initrd's own members are still there
    });

    it('appends the upstream minimal-initrd after the Ignition archive', async () => {
      const { writeCpio } = await import('../initrd/cpio.js');
      const { compress } = await import('../initrd/compression.js');
      const other = '1a2b3c4d-0000-4000-8000-000000000001';
      const extra = new FakeAssistedService(other, IGNITION);
      extra.minimalInitrd = await compress(writeCpio([{ path: 'etc/assisted/network/host0/eth0.nmconnection', data: Buffer.from('[connection]\n') }]), 'gzip');
      await extra.start();
      const config = loadConfig(
        {
          LISTEN_PORT: '0',
          LISTEN_ADDRESS: '127.0.0.1',
          DATA_DIR: dir,
          ASSISTED_SERVICE_URL: extra.url,
          OS_IMAGES: JSON.stringify([{ openshift_version: '4.17', cpu_architecture: 'x86_64', url: X86_ISO, version: '417.94.1' }]),
        },
        ['--role', 'image'],
      );
      const second = await startService(config, createLogger('silent'), { defaultMetrics: false });
      try {
        await second.imagesLoaded;
        const reply = await request(`${second.url}/images/${other}/pxe-initrd?version=4.17`);
        const paths = (await readInitrd(reply.body)).map((m) => m.path);
        expect(paths).toContain('config.ign');
        expect(paths).toContain('etc/assisted/network/host0/eth0.nmconnection');
      } finally {
        await second.close();
        await extra.stop();
      }
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
      const ranged = await request(`${base}/boot-artifacts/${name}?version=4.17&arch=x86_64`, { headers: { Range: 'bytes=-100' } });
      expect(ranged.status).toBe(206);
      expect(ranged.body.equals(reply.body.subarray(-100))).toBe(true);
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
  });

  describe('bad input', () => {
    it.each([
      [`/images/not-a-uuid?version=4.17&type=full-iso`, 400, /invalid image id/],
      [`/images/${ID}?type=full-iso`, 400, /'version' parameter required/],
      [`/images/${ID}?version=4.17`, 400, /'type' parameter required/],
      [`/images/${ID}?version=4.17&type=raw`, 400, /invalid value/],
      [`/images/${ID}?version=4.17&arch=sparc&type=full-iso`, 400, /unknown architecture/],
      [`/images/${ID}?version=9.99&type=full-iso`, 404, /no base image/],
      [`/byid/${ID}/4.17/x86_64/other.iso`, 404, /unrecognized file name/],
      [`/bytoken/garbage/4.17/x86_64/full.iso`, 404, /does not name an InfraEnv/],
      [`/images/${ID}?version=4.18&type=full-iso`, 503, /unusable/],
      [`/boot-artifacts/bootx64?version=4.17`, 404, /unknown boot artifact/],
    ])('GET %s → %i', async (pathAndQuery, status, message) => {
      const reply = await request(base + pathAndQuery);
      expect(reply.status).toBe(status);
      const body = JSON.parse(reply.body.toString()) as { code: number; message: string };
      expect(body.code).toBe(status);
      expect(body.message).toMatch(message);
    });

    it('passes an upstream 401 through and retries upstream next time', async () => {
      upstream.status = 401;
      const other = `${base}/images/${ID}?version=4.17&type=full-iso&api_key=wrong`;
      expect((await request(other)).status).toBe(401);
      upstream.status = 200;
      expect((await request(other, { method: 'HEAD' })).status).toBe(200);
    });

    it('refuses an Ignition config too large for the embed area with 413 naming both sizes', async () => {
      const previous = upstream.ignition;
      // incompressible content larger than the 256 KiB area
      upstream.ignition = JSON.stringify({ ignition: { version: '3.1.0' }, junk: (await import('node:crypto')).randomBytes(300_000).toString('base64') });
      try {
        const reply = await request(`${base}/images/${ID}?version=4.17&type=full-iso&api_key=big`);
        expect(reply.status).toBe(413);
        expect(JSON.parse(reply.body.toString()).message).toMatch(/Ignition archive is \d+ bytes but only 262144 bytes are available/);
      } finally {
        upstream.ignition = previous;
      }
    });
  });

  describe('operations', () => {
    it('reports every image state on /health and counts traffic in /metrics', async () => {
      const health = await request(`${base}/health`);
      expect(health.status).toBe(200);
      const body = JSON.parse(health.body.toString()) as { images: Array<{ state: string; reason?: string }> };
      expect(body.images.map((i) => i.state)).toEqual(['ready', 'ready', 'failed', 'ready']);
      expect(body.images[2]!.reason).toMatch(/missing\.iso/);
      expect((await request(`${base}/live`)).status).toBe(200);
      const metrics = (await request(`${base}/metrics`)).body.toString();
      expect(metrics).toMatch(/bootsmith_bytes_served_total\{artifact="full-iso"\} \d+/);
      expect(metrics).toMatch(/bootsmith_ignition_lookups_total\{result="hit"\} \d+/);
      expect(metrics).toMatch(/bootsmith_upstream_request_duration_seconds_count\{endpoint="discovery-ignition"/);
      expect(metrics).toMatch(/bootsmith_streams_in_flight\{artifact="full-iso"\} 0/);
    });
  });
});

/** An unsigned JWT-shaped string with the given claims (the image side does not verify it). */
function fakeJwt(claims: Record<string, unknown>): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.sig`;
}
