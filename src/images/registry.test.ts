// The image store end to end on real parts: a loopback HTTP server, real fixture ISOs (and
// ISOs built with xorriso, zips built with the zip CLI), a real cache directory. Each test
// checks what the store serves, what /health says, and what is left on disk.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../errors.js';
import { createLogger } from '../logger.js';
import { type RebuildMinimalIso, rebuildMinimalIsoFromMinisoDat } from './loader/minimal-iso.js';
import type { OsImageEntry } from './os-images-config.js';
import { type ImageRegistryOptions, ImageRegistry } from './registry.js';
import { defaultImageStoreSettings } from './store-settings.js';
import { FIXTURE_ISO, HAVE_XORRISO, HAVE_XZ, HAVE_ZIP, MINISO_FIXTURE, entry, fixtureBytes, isoWithMinisoDat, makeZip, plainIso, sha256 } from './test-support/images.js';
import { IsoServer } from './test-support/iso-server.js';
import { waitFor } from './test-support/wait.js';

const logger = createLogger('silent');
const iso = fixtureBytes();
const ISO_SHA = sha256(iso);

describe('ImageRegistry', () => {
  const server = new IsoServer();
  let root: string;
  const open: ImageRegistry[] = [];

  beforeAll(async () => {
    await server.start();
    root = await mkdtemp(path.join(tmpdir(), 'bootsmith-registry-'));
  });
  afterAll(async () => {
    await Promise.all(open.map((r) => r.close()));
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  let counter = 0;
  const newDataDir = () => path.join(root, `data-${++counter}`);
  const registry = (entries: OsImageEntry[], dataDir: string | undefined, options: ImageRegistryOptions = {}) => {
    const r = new ImageRegistry(entries, [], logger, {
      ...(dataDir ? { dataDir } : {}),
      retry: { attempts: 2, baseDelayMs: 10, slowDelayMs: 60_000 },
      ...options,
    });
    open.push(r);
    return r;
  };
  const states = (r: ImageRegistry) => r.health().images.map((i) => i.state);
  // (a record being rewritten to note when the image was served shows up as a .tmp- file for a moment)
  const cacheFiles = async (dataDir: string) => (await readdir(path.join(dataDir, 'images'))).filter((f) => !f.includes('.tmp-')).sort();

  it('downloads a remote image, reports progress while doing so, then serves it by sha256 identity', async () => {
    server.serve('/a.iso', iso, { chunkBytes: 64 * 1024, delayMs: 15 });
    const dataDir = newDataDir();
    const r = registry([entry('4.17', server.url('/a.iso'), { sha256: ISO_SHA })], dataDir);
    const loaded = r.loadAll();

    const downloading = await waitFor(() => r.health().images.find((i) => i.state === 'downloading' && (i.bytes ?? 0) > 0), 'download progress');
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
    expect(await cacheFiles(dataDir)).toEqual([expect.stringMatching(/^4\.17-x86_64-[0-9a-f]{12}\.iso$/), expect.stringMatching(/\.json$/)]);
  });

  it('reuses verified files after a restart without downloading or hashing again', async () => {
    server.serve('/b.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/b.iso'))];
    const first = registry(config, dataDir);
    await first.loadAll();
    const identity = first.resolve('4.17', 'x86_64').base.identity;
    await first.close();
    const hits = server.hitsFor('/b.iso').length;

    const second = registry(config, dataDir);
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
    const first = registry(config, dataDir);
    await first.loadAll();
    const file = first.resolve('4.17', 'x86_64').base.path;
    await first.close();
    await utimes(file, new Date(), new Date(Date.now() - 1000));
    const hits = server.hitsFor('/c.iso').length;

    const second = registry(config, dataDir);
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
    const first = registry(config, dataDir);
    await first.loadAll();
    await first.close();
    const recordFile = (await readdir(path.join(dataDir, 'images'))).find((f) => f.endsWith('.json'))!;
    const recordPath = path.join(dataDir, 'images', recordFile);
    const record = JSON.parse(await readFile(recordPath, 'utf8'));
    record.iso.manifest = { ...record.iso.manifest, formatVersion: 0, volumeId: 'stale' };
    await writeFile(recordPath, JSON.stringify(record));
    const hits = server.hitsFor('/f.iso').length;

    const second = registry(config, dataDir);
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
    const r = registry([entry('4.16', server.url('/d.iso'), { sha256: 'ab'.repeat(32) }), entry('4.17', server.url('/d.iso'))], dataDir);
    await r.loadAll();
    expect(states(r)).toEqual(['failed', 'ready']);
    const failed = r.health().images[0]!;
    expect(failed.reason).toMatch(new RegExp(`sha256 is ${ISO_SHA} but the configuration says abab`));
    expect(failed.retry_at).toBeUndefined();
    expect(() => r.resolve('4.16', 'x86_64')).toThrow(/unusable: .*sha256/);
    expect((await cacheFiles(dataDir)).filter((f) => f.startsWith('4.16'))).toEqual([]);
  });

  it.each([
    ['non-ISO content', () => Buffer.alloc(200_000, 0x42), /not a usable CoreOS live ISO: .*not an ISO 9660 image|volume descriptor/],
    ...(HAVE_XORRISO ? [['an ISO without CoreOS layout', () => plainIso(root), /not a usable CoreOS live ISO/] as const] : []),
  ] as const)('rejects %s with a clear reason and removes the .part', async (_name, make, reason) => {
    const p = `/bad-${counter}.iso`;
    server.serve(p, make());
    const dataDir = newDataDir();
    const r = registry([entry('4.17', server.url(p))], dataDir);
    await r.loadAll();
    expect(r.health().images[0]).toMatchObject({ state: 'failed', reason: expect.stringMatching(reason) });
    expect((await cacheFiles(dataDir)).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  it('retries a 404 on the slow schedule and becomes ready once the file appears', async () => {
    const dataDir = newDataDir();
    const r = registry([entry('4.17', server.url('/later.iso'))], dataDir, { retry: { attempts: 1, slowDelayMs: 100 } });
    await r.loadAll();
    expect(r.health().images[0]).toMatchObject({ state: 'failed', reason: expect.stringMatching(/later\.iso: the server answered HTTP 404/) });
    expect(r.health().images[0]!.retry_at).toBeDefined();
    server.serve('/later.iso', iso);
    await waitFor(() => states(r)[0] === 'ready', 'the slow retry');
  });

  it('downloads at most IMAGE_DOWNLOAD_CONCURRENCY images at once', async () => {
    const paths = ['/p1.iso', '/p2.iso', '/p3.iso', '/p4.iso'];
    for (const p of paths) server.serve(p, iso, { chunkBytes: 128 * 1024, delayMs: 10 });
    server.maxActive = 0;
    const r = registry(
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
    const r = registry([entry('4.17', `file://${FIXTURE_ISO}`, { sha256: ISO_SHA }), entry('4.16', FIXTURE_ISO, { sha256: '00'.repeat(32) })], dataDir);
    await r.loadAll();
    expect(states(r)).toEqual(['ready', 'failed']);
    expect(r.resolve('4.17', 'x86_64').base.path).toBe(FIXTURE_ISO);
    expect(r.resolve('4.17', 'x86_64').base.identity).toBe(`sha256:${ISO_SHA}`);
    expect((await cacheFiles(dataDir)).filter((f) => f.endsWith('.iso'))).toEqual([]); // not copied
  });

  describe('disk budget', () => {
    const budget = (max: number, extra: ImageRegistryOptions = {}): ImageRegistryOptions => ({
      settings: { ...defaultImageStoreSettings(), concurrency: 1, cacheMaxBytes: max },
      retireGraceMs: 50,
      ...extra,
    });
    const three = () => ['/e1.iso', '/e2.iso', '/e3.iso'].map((p, i) => entry(`4.${10 + i}`, server.url(server.serve(p, iso) && p)));

    it('evicts the least recently served image for a new one, and fetches an evicted one on request', async () => {
      const dataDir = newDataDir();
      const r = registry(three(), dataDir, budget(2 * iso.length + 4096, { evictionMinIdleMs: 0 }));
      await r.loadAll();
      expect(states(r)).toEqual(['evicted', 'ready', 'ready']);
      expect(r.health().images[0]!.reason).toMatch(/IMAGE_CACHE_MAX_BYTES/);

      const c = r.resolve('4.12', 'x86_64'); // 4.12 served: 4.11 is now the least recently served
      expect(() => r.resolve('4.10', 'x86_64')).toThrow(UnavailableError);
      const b = await waitFor(() => states(r)[0] === 'ready' && states(r)[1] === 'evicted' && r, 'on-demand fetch of 4.10');
      expect(b.resolve('4.12', 'x86_64')).toBe(c);
      const isos = (await cacheFiles(dataDir)).filter((f) => f.endsWith('.iso'));
      expect(isos.map((f) => f.slice(0, 4))).toEqual(['4.10', '4.12']);
    });

    it('keeps images served recently and leaves the newcomer uncached, fetched when requested', async () => {
      const dataDir = newDataDir();
      const r = registry(three(), dataDir, budget(2 * iso.length + 4096, { evictionMinIdleMs: 60_000 }));
      await r.loadAll();
      expect(states(r)).toEqual(['ready', 'ready', 'evicted']);
      expect(r.health().images[2]!.reason).toMatch(/short by .* images served in the last 1m00s are kept/);
      const hits = server.hitsFor('/e3.iso').length;
      expect(() => r.resolve('4.12', 'x86_64')).toThrow(/not cached/);
      await waitFor(() => r.health().images[2]!.reason, 'on-demand attempt');
      expect(server.hitsFor('/e3.iso').length).toBe(hits); // refused from the known size, no request
    });

    it('refuses for good an image larger than the whole budget', async () => {
      const r = registry([entry('4.17', server.url(server.serve('/big.iso', iso) && '/big.iso'))], newDataDir(), budget(1000));
      await r.loadAll();
      expect(r.health().images[0]).toMatchObject({ state: 'failed', reason: expect.stringMatching(/more than IMAGE_CACHE_MAX_BYTES/) });
    });

    it('closes the BaseFile of an evicted image only after the grace period', async () => {
      const dataDir = newDataDir();
      const r = registry(three().slice(0, 2), dataDir, budget(iso.length + 4096, { evictionMinIdleMs: 0, retireGraceMs: 1000 }));
      await r.loadAll();
      expect(states(r)).toEqual(['evicted', 'ready']);
      const second = r.resolve('4.11', 'x86_64');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(() => r.resolve('4.10', 'x86_64')).toThrow(UnavailableError);
      await waitFor(() => states(r)[1] === 'evicted', 'eviction of 4.11');
      expect(second.base.isOpen).toBe(true); // a stream started before the eviction may still read
      expect((await second.base.readExactly(0, 16)).equals(iso.subarray(0, 16))).toBe(true);
      await waitFor(() => !second.base.isOpen, 'the grace period');
      expect(states(r)).toEqual(['ready', 'evicted']);
    });
  });

  describe.skipIf(!HAVE_ZIP)('zip sources', () => {
    it('extracts the single ISO of a downloaded zip, verifies it and removes the zip', async () => {
      const zip = makeZip(root, 'one.zip', { 'rhcos/live.iso': iso, 'README.txt': Buffer.from('hi') });
      server.serve('/one.zip', await readFile(zip));
      const dataDir = newDataDir();
      const r = registry([entry('4.17', server.url('/one.zip'), { sha256: ISO_SHA })], dataDir);
      await r.loadAll();
      expect(states(r)).toEqual(['ready']);
      expect(r.resolve('4.17', 'x86_64').base.identity).toBe(`sha256:${ISO_SHA}`);
      expect((await cacheFiles(dataDir)).some((f) => f.includes('.zip'))).toBe(false);
    });

    it('extracts a local zip into the cache', async () => {
      const zip = makeZip(root, 'local.zip', { 'live.iso': iso });
      const r = registry([entry('4.17', zip)], newDataDir());
      await r.loadAll();
      expect(r.resolve('4.17', 'x86_64').base.path).toMatch(/images\/4\.17-x86_64-[0-9a-f]{12}\.iso$/);
    });

    it.each([
      ['no ISO', { 'a.txt': Buffer.from('x') }, /holds 0 \.iso files; expected exactly one/],
      ['two ISOs', { 'a.iso': iso, 'b.iso': iso }, /holds 2 \.iso files \(a\.iso, b\.iso\)/],
    ])('fails a zip with %s', async (name, files, reason) => {
      const zip = makeZip(root, `${name.replace(' ', '-')}.zip`, files);
      const r = registry([entry('4.17', zip)], newDataDir());
      await r.loadAll();
      expect(r.health().images[0]).toMatchObject({ state: 'failed', reason: expect.stringMatching(reason) });
    });

    it('fails a file that is not a zip at all', async () => {
      const fake = path.join(root, 'fake.zip');
      await writeFile(fake, 'PK but not really');
      const r = registry([entry('4.17', fake)], newDataDir());
      await r.loadAll();
      expect(r.health().images[0]).toMatchObject({ state: 'failed', reason: expect.stringMatching(/not a readable zip archive/) });
    });
  });

  describe.skipIf(!HAVE_XZ || !existsSync(MINISO_FIXTURE))('minimal ISO variant', () => {
    // the project's own packed fixture: the minimal ISO it rebuilds has this sha256 (fixtures/README.md)
    const MINIMAL_SHA = 'ebdbe45944929bc56147c8d3a7dce7ad7a4ef453ec84b6de14d4c7174a337bec';
    const counting = () => {
      const calls: string[] = [];
      const rebuildMinimalIso: RebuildMinimalIso = (full, manifest, out, signal) => {
        calls.push(full);
        return rebuildMinimalIsoFromMinisoDat(full, manifest, out, signal);
      };
      return { calls, rebuildMinimalIso };
    };

    it('rebuilds it from coreos/miniso.dat once into the cache, exposes it, and reuses it after a restart', async () => {
      const dataDir = newDataDir();
      const { calls, rebuildMinimalIso } = counting();
      const config = [entry('4.17', MINISO_FIXTURE)];
      const first = registry(config, dataDir, { rebuildMinimalIso });
      await first.loadAll();
      const image = first.resolve('4.17', 'x86_64');
      expect(image.minimalState).toEqual({ state: 'ready' });
      expect(image.minimal?.base.identity).toBe(`sha256:${MINIMAL_SHA}`);
      expect(image.minimal?.base.path).toMatch(/images\/4\.17-x86_64-[0-9a-f]{12}\.minimal\.iso$/);
      expect(sha256(await readFile(image.minimal!.base.path))).toBe(MINIMAL_SHA);
      expect(image.minimal?.manifest.files.rootfs).toBeUndefined();
      expect(image.minimal?.manifest.ignition.length).toBe(image.manifest.ignition.length);
      expect(first.images()[0]!.minimalIsoSupported).toBe(true);
      expect(first.health().images[0]!.minimal_iso).toEqual({ state: 'ready' });
      await first.close();

      const second = registry(config, dataDir, { rebuildMinimalIso });
      await second.loadAll();
      expect(second.resolve('4.17', 'x86_64').minimal?.base.identity).toBe(`sha256:${MINIMAL_SHA}`);
      expect(calls).toEqual([MINISO_FIXTURE]);
    });

    it.skipIf(!HAVE_XORRISO)('marks only the minimal variant failed when miniso.dat is corrupt', async () => {
      const dir = await mkdtemp(path.join(root, 'corrupt-'));
      const corrupt = isoWithMinisoDat(dir, Buffer.alloc(16 * 1024, 0x5a));
      const dataDir = newDataDir();
      const r = registry([entry('4.17', corrupt)], dataDir);
      await r.loadAll();
      const image = r.resolve('4.17', 'x86_64');
      expect(image.minimal).toBeUndefined();
      expect(image.minimalState).toEqual({ state: 'failed', reason: expect.stringMatching(/miniso\.dat/) });
      expect(r.health().images[0]).toMatchObject({ state: 'ready', minimal_iso: { state: 'failed' } });
      expect(r.images()[0]!.minimalIsoSupported).toBe(false);
      expect((await cacheFiles(dataDir)).filter((f) => f.includes('minimal'))).toEqual([]);
    });

    it('rejects a rebuilt minimal ISO that does not parse', async () => {
      const rebuildMinimalIso: RebuildMinimalIso = async (_full, _manifest, out) => {
        await writeFile(out, 'garbage');
        return { sha256: sha256(Buffer.from('garbage')) };
      };
      const r = registry([entry('4.17', MINISO_FIXTURE)], newDataDir(), { rebuildMinimalIso });
      await r.loadAll();
      expect(r.resolve('4.17', 'x86_64').minimalState).toMatchObject({ state: 'failed', reason: expect.stringMatching(/minimal ISO: not a usable CoreOS live ISO/) });
    });
  });

  it('exports bytes downloaded and images by state', async () => {
    server.serve('/m.iso', iso);
    const metrics = new Registry();
    const r = registry([entry('4.17', server.url('/m.iso')), entry('4.16', '/nonexistent/x.iso')], newDataDir(), { metricsRegistry: metrics });
    await r.loadAll();
    const text = await metrics.metrics();
    expect(text).toContain(`bootsmith_image_download_bytes_total{image="4.17/x86_64"} ${iso.length}`);
    expect(text).toContain('bootsmith_images{state="ready"} 1');
    expect(text).toContain('bootsmith_images{state="failed"} 1');
    expect(text).toContain('bootsmith_images{state="downloading"} 0');
    expect(text).toMatch(/bootsmith_image_load_failures_total\{image="4.16\/x86_64",retry="slow"\} 1/);
  });
});
