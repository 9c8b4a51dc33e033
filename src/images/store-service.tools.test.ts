// The "done when" scenario over real HTTP: four configured images, one broken. The
// service is live at once, serves each good image as soon as it is verified (while others are
// still downloading), reports the broken one on /health and with 503 + Retry-After, exports
// the store's metrics, and after a restart serves everything without downloading again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactService } from '../artifacts/artifact-service.js';
import { imagesHealth } from '../assembly/images-wing.js';
import { createApp } from '../http/face/app.js';
import { DEFAULT_REQUEST_CAP, RequestCap } from '../http/face/request-cap.js';
import type { IgnitionSource } from '../image-ports/ignition-source.js';
import { createLogger } from '../logger.js';
import { Metrics } from '../metrics.js';
import type { OsImageEntry } from './os-images-config.js';
import { ManagedImageStore } from './managed-image-store.js';
import { HAVE_ZIP, entry, fixtureBytes, makeZip, sha256 } from './test-support/images.js';
import { IsoServer } from './test-support/iso-server.js';
import { waitFor } from './test-support/wait.js';
import { unavailable } from '../../test/support/requirements.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
const ignition: IgnitionSource = {
  discoveryCustomization: async () => ({
    ignition: Buffer.from('{"ignition":{"version":"3.1.0"}}'),
    kernelArguments: [],
  }),
};

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
function get(url: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject);
  });
}

/** The image side of one bootsmith process over a imageStore of our own (what src/service.ts wires). */
async function startImageSide(entries: OsImageEntry[], dataDir: string) {
  const metrics = new Metrics({ defaultMetrics: false });
  const imageStore = new ManagedImageStore(entries, [], createLogger('silent'), {
    dataDir,
    metricsRegistry: metrics.registry,
  });
  const loaded = imageStore.loadAll();
  const app = createApp({
    logger: createLogger('silent'),
    metrics,
    health: [imagesHealth(imageStore)],
    imageFace: {
      artifacts: new ArtifactService(imageStore, ignition, 'gzip', 'http://127.0.0.1'),
      cap: new RequestCap(DEFAULT_REQUEST_CAP, metrics),
      urlTokens: undefined,
      observer: undefined,
      tokenReads: undefined,
    },
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    imageStore,
    loaded,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await imageStore.close();
    },
  };
}

describe.skipIf(unavailable({ zip: HAVE_ZIP }))('four images, one broken', () => {
  const iso = fixtureBytes();
  const mirror = new IsoServer();
  let dataDir: string;
  let entries: OsImageEntry[];
  let zipHalf: number;

  beforeAll(async () => {
    await mirror.start();
    dataDir = await mkdtemp(path.join(tmpdir(), 'bootsmith-done-'));
    const zip = await readFile(makeZip(dataDir, 'vendor.zip', { 'rhcos-live.iso': iso }));
    zipHalf = Math.floor(zip.length / 2);
    mirror
      .serve('/fast.iso', iso)
      .serve('/slow.iso', iso, { chunkBytes: 16 * 1024, delayMs: 15 })
      .serve('/vendor.zip', zip, { chunkBytes: 16 * 1024, delayMs: 10, dropAfter: zipHalf })
      .serve('/broken.iso', iso);
    entries = [
      entry('4.14', mirror.url('/fast.iso'), { sha256: sha256(iso) }),
      entry('4.15', mirror.url('/slow.iso')),
      // no sha256: the zip is downloaded (a configured one would adopt 4.14's stored file at once)
      entry('4.16', mirror.url('/vendor.zip')),
      entry('4.17', mirror.url('/broken.iso'), { sha256: 'f'.repeat(64) }),
    ];
  });
  afterAll(async () => {
    await mirror.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is live at once, serves each image once verified, reports the broken one, and restarts without downloading', async () => {
    const first = await startImageSide(entries, dataDir);
    try {
      expect((await get(`${first.url}/live`)).status).toBe(200);
      const early = await get(`${first.url}/health`);
      expect(early.headers['cache-control']).toBe('no-store');

      // 4.14 is served while 4.15 is still downloading
      await waitFor(
        () =>
          first.imageStore.health().images[0]!.state === 'ready' &&
          first.imageStore.health().images[1]!.state !== 'ready',
        '4.14 ready first',
      );
      const served = await get(`${first.url}/images/${ID}?version=4.14&type=full-iso`);
      expect(served.status).toBe(200);
      expect(served.body.length).toBe(iso.length);
      const waiting = await get(`${first.url}/images/${ID}?version=4.15&type=full-iso`);
      expect(waiting.status).toBe(503);
      expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(0);
      expect(waiting.headers['cache-control']).toBe('no-store');
      const midway = JSON.parse((await get(`${first.url}/health`)).body.toString()) as {
        status: string;
        images: Array<Record<string, unknown>>;
      };
      expect(midway.status).toBe('ok');
      expect(midway.images[1]).toMatchObject({
        openshift_version: '4.15',
        state: expect.stringMatching(/pending|downloading|verifying/),
      });

      await first.loaded;
      const health = JSON.parse((await get(`${first.url}/health`)).body.toString()) as {
        images: Array<Record<string, unknown>>;
      };
      expect(health.images.map((i) => i.state)).toEqual(['ready', 'ready', 'ready', 'failed']);
      expect(health.images[3]).toMatchObject({
        reason: expect.stringMatching(/sha256 is [0-9a-f]{64} but the configuration says f{64}/),
      });
      expect(health.images[3]!.retry_at).toBeUndefined();
      // three sources, the same bytes: one stored file, named by its sha256, shared by the three entries
      expect(new Set(health.images.slice(0, 3).map((i) => i.file))).toEqual(new Set([`sha256-${sha256(iso)}.iso`]));
      expect(health.images[0]!.shared_with).toEqual(['4.15 x86_64', '4.16 x86_64']);
      const broken = await get(`${first.url}/images/${ID}?version=4.17&type=full-iso`);
      expect(broken.status).toBe(503);
      expect(JSON.parse(broken.body.toString()).message).toMatch(/unusable: .*sha256/);
      for (const v of ['4.15', '4.16'])
        expect((await get(`${first.url}/images/${ID}?version=${v}&type=full-iso`)).status).toBe(200);
      // the vendor zip broke half way and was resumed, not restarted
      expect(mirror.hitsFor('/vendor.zip').map((h) => h.range)).toEqual([undefined, `bytes=${zipHalf}-`]);

      const metrics = (await get(`${first.url}/metrics`)).body.toString();
      expect(metrics).toContain('bootsmith_images{state="ready"} 3');
      expect(metrics).toContain('bootsmith_images{state="failed"} 1');
      expect(metrics).toMatch(/bootsmith_image_download_bytes_total\{image="4.15\/x86_64"\} \d+/);
    } finally {
      await first.close();
    }

    const hits = mirror.hits.length;
    const etag = async (url: string) => (await get(`${url}/images/${ID}?version=4.15&type=full-iso`)).headers.etag;
    const second = await startImageSide(entries, dataDir);
    try {
      await second.loaded;
      expect(second.imageStore.health().images.map((i) => i.state)).toEqual(['ready', 'ready', 'ready', 'failed']);
      const good = mirror.hits.slice(hits).filter((h) => h.path !== '/broken.iso');
      expect(good).toEqual([]); // the broken one is tried again after a restart; the good ones are not downloaded
      expect(await etag(second.url)).toMatch(/^"/);
    } finally {
      await second.close();
    }
  });
});
