// GET|HEAD /images/{id}, /byid/…, /bytoken/…, /byapikey/… (discovery-image.ts) over loopback HTTP:
// real fixture ISOs, the real range layer, a fake assisted-service upstream (remote Ignition
// source), and independent readers (xorriso, gzip, cpio) for what ends up in the downloaded bytes.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEmbedArea } from '../../../initrd/embed-archive.js';
import { parseLiveIso } from '../../../iso/live-layout.js';
import { readVolumeDate } from '../../../iso/volume-date.js';
import type { LiveManifest } from '../../../iso/manifest.js';
import type { FakeAssistedService } from '../../../../test/support/fake-assisted-service.js';
import { HAVE_CPIO, HAVE_GZIP, HAVE_XORRISO } from '../../../../test/support/probes.js';
import { unavailable } from '../../../../test/support/requirements.js';
import {
  type ImageService,
  ID,
  IGNITION,
  MINISO_ISO,
  type Reply,
  X86_ISO,
  fakeJwt,
  request,
  startImageService,
} from '../../../../test/support/image-service.js';

/** sha256 of the minimal ISO that MINISO_ISO's coreos/miniso.dat rebuilds (fixtures/README.md). */
const MINIMAL_SHA256 = 'ebdbe45944929bc56147c8d3a7dce7ad7a4ef453ec84b6de14d4c7174a337bec';

describe('discovery image routes over HTTP', () => {
  let running: ImageService;
  let upstream: FakeAssistedService;
  let base: string;
  let dir: string;
  let x86Base: Buffer;
  let x86: LiveManifest;

  beforeAll(async () => {
    running = await startImageService();
    ({ upstream, base, dir } = running);
    x86Base = await readFile(X86_ISO);
    x86 = await parseLiveIso(X86_ISO);
  });
  afterAll(async () => {
    await running?.close();
  });

  const isoUrl = () => `${base}/images/${ID}?version=4.17&arch=x86_64&type=full-iso`;

  describe('discovery ISO', () => {
    let full: Reply;
    beforeAll(async () => {
      full = await request(isoUrl());
    });

    it('is served whole with the HTTP headers every client needs', async () => {
      expect(full.status).toBe(200);
      expect(full.headers['content-length']).toBe(String(x86Base.length));
      expect(full.headers['transfer-encoding']).toBeUndefined();
      expect(full.headers['accept-ranges']).toBe('bytes');
      expect(full.headers['content-type']).toBe('application/octet-stream');
      expect(full.headers['content-disposition']).toContain(`${ID}-discovery.iso`);
      expect(full.headers.etag).toMatch(/^"[^"]+"$/);
      // the later of the base image's own volume date (not the cache file's mtime, which
      // differs per replica) and the upstream's Last-Modified for the Ignition
      const upstreamModified = new Date('2026-11-03T10:00:00.000Z');
      const baseModified = (await readVolumeDate(X86_ISO))!;
      expect(baseModified.getTime()).not.toBe(statSync(X86_ISO).mtime.getTime());
      const expected = baseModified > upstreamModified ? baseModified : upstreamModified;
      expect(full.headers['last-modified']).toBe(new Date(Math.floor(expected.getTime() / 1000) * 1000).toUTCString());
      expect(full.body.length).toBe(x86Base.length);
    });

    it('carries the Ignition config in the embed area, zero padded, readable by our reader', async () => {
      const area = full.body.subarray(x86.ignition.offset, x86.ignition.offset + x86.ignition.length);
      const contents = await readEmbedArea(area);
      expect(contents.ignition?.toString()).toBe(IGNITION);
    });

    it.skipIf(unavailable({ xorriso: HAVE_XORRISO, gzip: HAVE_GZIP, cpio: HAVE_CPIO }))(
      'carries the Ignition config readable by xorriso + gzip + cpio',
      async () => {
        const work = await mkdtemp(path.join(dir, 'xorriso-'));
        await writeFile(path.join(work, 'd.iso'), full.body);
        execFileSync(
          'xorriso',
          ['-osirrox', 'on', '-indev', 'd.iso', '-extract', '/images/ignition.img', 'ignition.img'],
          { cwd: work, stdio: 'ignore' },
        );
        // gzip stops at the end of the member and only warns about the zero padding after it
        execFileSync('sh', ['-c', 'gzip -dc < ignition.img 2>/dev/null | cpio -idm --quiet; true'], { cwd: work });
        expect(await readFile(path.join(work, 'config.ign'), 'utf8')).toBe(IGNITION);
      },
    );

    it('carries the InfraEnv kernel arguments appended to the defaults in every kargs area', () => {
      const kargs = x86.kargs!;
      const expected = `${kargs.default} console=ttyS0 rd.debug`;
      for (const location of kargs.locations) {
        const area = full.body.subarray(location.offset, location.offset + kargs.size).toString('latin1');
        expect(area.startsWith(`${expected}${kargs.end}`)).toBe(true);
        expect(area.slice(expected.length + kargs.end.length)).toBe(
          kargs.pad.repeat(kargs.size - expected.length - kargs.end.length),
        );
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
      for (const name of [
        'content-length',
        'etag',
        'last-modified',
        'accept-ranges',
        'content-type',
        'content-disposition',
      ]) {
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
      const random = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
      for (let batch = 0; batch < 50; batch++) {
        await Promise.all(
          Array.from({ length: 20 }, async () => {
            const start = Math.floor(random() * size);
            const end = Math.min(size - 1, start + Math.floor(random() * 300_000));
            const reply = await request(url, {
              headers: { Range: `bytes=${start}-${end}`, 'If-Range': head.headers.etag! },
            });
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
      const ranges: Array<[number, number]> = [
        [0, 99],
        [area - 10, area + 70_000],
        [x86Base.length - 5, x86Base.length - 1],
      ];
      const reply = await request(isoUrl(), {
        headers: { Range: `bytes=${ranges.map(([a, b]) => `${a}-${b}`).join(',')}` },
      });
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
      // the minimal ISO is rebuilt in the background once (bounded by time, not by a count of polls)
      for (const until = Date.now() + 60_000; reply.status === 503 && Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 100));
        reply = await request(url);
      }
      expect(reply.status).toBe(200);
      const rebuilt = path.join(dir, 'minimal-rebuilt.iso');
      const { rebuildMinimalIso } = await import('../../../iso/miniso/miniso.js');
      const result = await rebuildMinimalIso(MINISO_ISO, await parseLiveIso(MINISO_ISO), rebuilt);
      expect(result.sha256).toBe(MINIMAL_SHA256);
      const minimal = await parseLiveIso(rebuilt);
      const minimalBytes = await readFile(rebuilt);
      expect(reply.body.length).toBe(minimalBytes.length);

      const contents = await readEmbedArea(
        reply.body.subarray(minimal.ignition.offset, minimal.ignition.offset + minimal.ignition.length),
      );
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

  describe('bad input', () => {
    it.each([
      [`/images/not-a-uuid?version=4.17&type=full-iso`, 400, /invalid image id/],
      [`/images/${ID}?type=full-iso`, 400, /'version' parameter required/],
      [`/images/${ID}?version=4.17`, 400, /'type' parameter required/],
      [`/images/${ID}?version=4.17&type=raw`, 400, /invalid value/],
      [`/images/${ID}?version=4.17&arch=sparc&type=full-iso`, 400, /unknown architecture/],
      [`/images/${ID}?version=9.99&type=full-iso`, 404, /no base image/],
      [`/byid/${ID}/4.17/x86_64/other.iso`, 404, /unrecognized file name/],
      [`/bytoken/garbage/4.17/x86_64/full.iso`, 401, /issued only by bootsmith/],
      [`/bytoken/a.b.c/4.17/x86_64/full.iso`, 404, /does not name an InfraEnv/],
      [`/images/${ID}?version=4.18&type=full-iso`, 503, /unusable/],
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
      upstream.ignition = JSON.stringify({
        ignition: { version: '3.1.0' },
        junk: (await import('node:crypto')).randomBytes(300_000).toString('base64'),
      });
      try {
        const reply = await request(`${base}/images/${ID}?version=4.17&type=full-iso&api_key=big`);
        expect(reply.status).toBe(413);
        expect(JSON.parse(reply.body.toString()).message).toMatch(
          /Ignition archive is \d+ bytes but only 262144 bytes are available/,
        );
      } finally {
        upstream.ignition = previous;
      }
    });
  });
});
