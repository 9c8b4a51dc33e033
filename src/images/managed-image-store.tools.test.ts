// The image store end to end on real parts: a loopback HTTP server, real fixture ISOs (and
// ISOs built with xorriso, zips built with the zip CLI), a real cache directory. Each test
// checks what the store serves, what /health says, and what is left on disk.
import { readFile, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../errors.js';
import { readVolumeDate } from '../iso/volume-date.js';
import { defaultImageStoreSettings } from './store-settings.js';
import { FIXTURE_ISO, HAVE_XORRISO, entry, fixtureBytes, plainIso, sha256 } from './test-support/images.js';
import { storeHarness } from './test-support/store-harness.js';
import { waitFor } from './test-support/wait.js';

const iso = fixtureBytes();
const ISO_SHA = sha256(iso);

describe('ManagedImageStore', () => {
  const { server, root, newDataDir, imageStore, states, cacheFiles } = storeHarness();

  it('downloads a remote image, reports progress while doing so, then serves it by sha256 identity', async () => {
    server.serve('/a.iso', iso, { chunkBytes: 64 * 1024, delayMs: 15 });
    const dataDir = newDataDir();
    const r = imageStore([entry('4.17', server.url('/a.iso'), { sha256: ISO_SHA })], dataDir);
    const loaded = r.loadAll();

    const downloading = await waitFor(
      () => r.health().images.find((i) => i.state === 'downloading' && (i.bytes ?? 0) > 0),
      'download progress',
    );
    expect(downloading.total_bytes).toBe(iso.length);
    expect(downloading.percent).toBeGreaterThan(0);
    expect(r.images()[0]!.state).toBe('pending');
    const refused = (() => {
      try {
        r.resolve('4.17', 'x86_64');
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(UnavailableError);
    expect((refused as UnavailableError).retryAfterSeconds).toBeGreaterThan(0);
    expect((refused as Error).message).toMatch(/not ready yet \(downloading/);

    await loaded;
    const image = r.resolve('417.94.1', 'amd64');
    expect(image.base.identity).toBe(`sha256:${ISO_SHA}`);
    expect((await image.base.readExactly(0, iso.length)).equals(iso)).toBe(true);
    expect(image.minimalState).toEqual({ state: 'absent' });
    const health = r.health().images[0]!;
    expect(health).toMatchObject({ state: 'ready', size: iso.length, sha256: ISO_SHA, source: server.url('/a.iso') });
    expect(health.last_served_at).toBeDefined();
    // the ISO named by its content, the record by its source (URL hash, and the configured sha256)
    expect(await cacheFiles(dataDir)).toEqual([
      `sha256-${ISO_SHA}.iso`,
      expect.stringMatching(new RegExp(`^x86_64-[0-9a-f]{12}-${ISO_SHA.slice(0, 12)}\\.json$`)),
    ]);
  });

  it('reuses verified files after a restart without downloading or hashing again', async () => {
    server.serve('/b.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/b.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    const identity = first.resolve('4.17', 'x86_64').base.identity;
    await first.close();
    const hits = server.hitsFor('/b.iso').length;

    const second = imageStore(config, dataDir);
    const seen = new Set<string>();
    second.subscribe(() => second.health().images.forEach((i) => seen.add(i.state)));
    await second.loadAll();
    expect(server.hitsFor('/b.iso').length).toBe(hits);
    expect([...seen].sort()).toEqual(['pending', 'ready']); // no downloading, no verifying
    expect(second.resolve('4.17', 'x86_64').base.identity).toBe(identity); // stable ETags
  });

  it('verifies a cached file again (without downloading) when it changed since its record', async () => {
    server.serve('/c.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/c.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    const file = first.resolve('4.17', 'x86_64').base.path;
    await first.close();
    await utimes(file, new Date(), new Date(Date.now() - 1000));
    const hits = server.hitsFor('/c.iso').length;

    const second = imageStore(config, dataDir);
    const seen = new Set<string>();
    second.subscribe(() => second.health().images.forEach((i) => seen.add(i.state)));
    await second.loadAll();
    expect(seen.has('verifying')).toBe(true);
    expect(server.hitsFor('/c.iso').length).toBe(hits);
    expect(states(second)).toEqual(['ready']);
  });

  it('re-parses (without hashing or downloading) a record written with an older manifest format', async () => {
    server.serve('/f.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/f.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    await first.close();
    const recordFile = (await readdir(path.join(dataDir, 'images'))).find((f) => f.endsWith('.json'))!;
    const recordPath = path.join(dataDir, 'images', recordFile);
    const record = JSON.parse(await readFile(recordPath, 'utf8'));
    record.iso.manifest = { ...record.iso.manifest, formatVersion: 0, volumeId: 'stale' };
    await writeFile(recordPath, JSON.stringify(record));
    const hits = server.hitsFor('/f.iso').length;

    const second = imageStore(config, dataDir);
    await second.loadAll();
    expect(second.resolve('4.17', 'x86_64').manifest.volumeId).toBe('fedora-coreos-41.20241109.3.0');
    expect(server.hitsFor('/f.iso').length).toBe(hits);
    const rewritten = JSON.parse(await readFile(recordPath, 'utf8'));
    expect(rewritten.iso.manifest.formatVersion).toBe(1);
    expect(rewritten.iso.sha256).toBe(ISO_SHA);
  });

  it('marks a wrong sha256 failed for good, leaves nothing on disk, and keeps serving the others', async () => {
    server.serve('/d.iso', iso);
    const dataDir = newDataDir();
    const r = imageStore(
      [entry('4.16', server.url('/d.iso'), { sha256: 'ab'.repeat(32) }), entry('4.17', server.url('/d.iso'))],
      dataDir,
    );
    await r.loadAll();
    expect(states(r)).toEqual(['failed', 'ready']);
    const failed = r.health().images[0]!;
    expect(failed.reason).toMatch(new RegExp(`sha256 is ${ISO_SHA} but the configuration says abab`));
    expect(failed.retry_at).toBeUndefined();
    expect(() => r.resolve('4.16', 'x86_64')).toThrow(/unusable: .*sha256/);
    expect((await cacheFiles(dataDir)).filter((f) => f.startsWith('4.16'))).toEqual([]);
  });

  let badCount = 0;
  it.each([
    [
      'non-ISO content',
      () => Buffer.alloc(200_000, 0x42),
      /not a usable CoreOS live ISO: .*not an ISO 9660 image|volume descriptor/,
    ],
    ...(HAVE_XORRISO
      ? [['an ISO without CoreOS layout', () => plainIso(root()), /not a usable CoreOS live ISO/] as const]
      : []),
  ] as const)('rejects %s with a clear reason and removes the .part', async (_name, make, reason) => {
    const p = `/bad-${++badCount}.iso`;
    server.serve(p, make());
    const dataDir = newDataDir();
    const r = imageStore([entry('4.17', server.url(p))], dataDir);
    await r.loadAll();
    expect(r.health().images[0]).toMatchObject({ state: 'failed', reason: expect.stringMatching(reason) });
    expect((await cacheFiles(dataDir)).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  it('retries a 404 on the slow schedule and becomes ready once the file appears', async () => {
    const dataDir = newDataDir();
    const r = imageStore([entry('4.17', server.url('/later.iso'))], dataDir, {
      retry: { attempts: 1, slowDelayMs: 100 },
    });
    await r.loadAll();
    expect(r.health().images[0]).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/later\.iso: the server answered HTTP 404/),
    });
    expect(r.health().images[0]!.retry_at).toBeDefined();
    server.serve('/later.iso', iso);
    await waitFor(() => states(r)[0] === 'ready', 'the slow retry');
  });

  it('downloads at most IMAGE_DOWNLOAD_CONCURRENCY images at once', async () => {
    const paths = ['/p1.iso', '/p2.iso', '/p3.iso', '/p4.iso'];
    for (const p of paths) server.serve(p, iso, { chunkBytes: 128 * 1024, delayMs: 10 });
    server.maxActive = 0;
    const r = imageStore(
      paths.map((p, i) => entry(`4.1${i}`, server.url(p))),
      newDataDir(),
      { settings: { ...defaultImageStoreSettings(), concurrency: 2 } },
    );
    await r.loadAll();
    expect(states(r)).toEqual(['ready', 'ready', 'ready', 'ready']);
    expect(server.maxActive).toBe(2);
  });

  it('uses a local ISO in place, checks its sha256, and records it', async () => {
    const dataDir = newDataDir();
    const r = imageStore(
      [
        entry('4.17', `file://${FIXTURE_ISO}`, { sha256: ISO_SHA }),
        entry('4.16', FIXTURE_ISO, { sha256: '00'.repeat(32) }),
      ],
      dataDir,
    );
    await r.loadAll();
    expect(states(r)).toEqual(['ready', 'failed']);
    expect(r.resolve('4.17', 'x86_64').base.path).toBe(FIXTURE_ISO);
    expect(r.resolve('4.17', 'x86_64').base.identity).toBe(`sha256:${ISO_SHA}`);
    expect((await cacheFiles(dataDir)).filter((f) => f.endsWith('.iso'))).toEqual([]); // not copied
  });

  it('exports bytes downloaded and images by state', async () => {
    server.serve('/m.iso', iso);
    const metrics = new Registry();
    const r = imageStore([entry('4.17', server.url('/m.iso')), entry('4.16', '/nonexistent/x.iso')], newDataDir(), {
      metricsRegistry: metrics,
    });
    await r.loadAll();
    const text = await metrics.metrics();
    expect(text).toContain(`bootsmith_image_download_bytes_total{image="4.17/x86_64"} ${iso.length}`);
    expect(text).toContain('bootsmith_images{state="ready"} 1');
    expect(text).toContain('bootsmith_images{state="failed"} 1');
    expect(text).toContain('bootsmith_images{state="downloading"} 0');
    expect(text).toMatch(/bootsmith_image_load_failures_total\{image="4.16\/x86_64",retry="slow"\} 1/);
  });
});

describe('replicas', () => {
  const { server, newDataDir, imageStore } = storeHarness();

  it('serve identical validators for identical bytes, whatever their cache files’ mtimes', async () => {
    server.serve('/r.iso', iso);
    const [a, b] = [newDataDir(), newDataDir()];
    const ra = imageStore([entry('4.17', server.url('/r.iso'), { sha256: ISO_SHA })], a);
    await ra.loadAll();
    await new Promise((r) => setTimeout(r, 1100)); // the second replica's download is a second later
    const rb = imageStore([entry('4.17', server.url('/r.iso'), { sha256: ISO_SHA })], b);
    await rb.loadAll();
    const [ia, ib] = [ra.resolve('4.17', 'x86_64').base, rb.resolve('4.17', 'x86_64').base];
    expect(ia.path).not.toBe(ib.path);
    expect(Math.floor((await stat(ia.path)).mtimeMs / 1000)).not.toBe(Math.floor((await stat(ib.path)).mtimeMs / 1000));
    expect(ia.identity).toBe(ib.identity);
    expect(ia.mtime.getTime()).toBe(ib.mtime.getTime());
    expect(ia.mtime.getTime()).toBe((await readVolumeDate(FIXTURE_ISO))!.getTime());
  });
});
