// The image store's disk budget end to end on real parts (loopback HTTP, fixture ISOs, a real cache
// directory): what is evicted, what is kept, what is fetched again on request.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../errors.js';
import { createLogger } from '../../logger.js';
import type { ManagedImageStore, ManagedImageStoreOptions } from '../managed-image-store.js';
import { defaultImageStoreSettings } from '../store-settings.js';
import { MINISO_FIXTURE, entry, fixtureBytes, fixtureVariant, sha256 } from '../test-support/images.js';
import { inspectCache } from './cache-inventory.js';
import { storeHarness } from '../test-support/store-harness.js';
import { waitFor } from '../test-support/wait.js';

const iso = fixtureBytes();

describe('ManagedImageStore', () => {
  const { server, newDataDir, imageStore, states, cacheFiles } = storeHarness();

  describe('disk budget', () => {
    const budget = (max: number, extra: ManagedImageStoreOptions = {}): ManagedImageStoreOptions => ({
      settings: { ...defaultImageStoreSettings(), concurrency: 1, cacheMaxBytes: max },
      retireGraceMs: 50,
      ...extra,
    });
    // three different ISOs of one size (identical bytes would share one stored file)
    const variants = [1, 2, 3].map(fixtureVariant);
    const three = () =>
      ['/e1.iso', '/e2.iso', '/e3.iso'].map((p, i) =>
        entry(`4.${10 + i}`, server.url(server.serve(p, variants[i]!) && p)),
      );

    it('evicts the least recently served image for a new one, and fetches an evicted one on request', async () => {
      const dataDir = newDataDir();
      const r = imageStore(three(), dataDir, budget(2 * iso.length + 4096, { evictionMinIdleMs: 0 }));
      await r.loadAll();
      expect(states(r)).toEqual(['evicted', 'ready', 'ready']);
      expect(r.health().images[0]!.reason).toMatch(/IMAGE_CACHE_MAX_BYTES/);

      const c = r.resolve('4.12', 'x86_64'); // 4.12 served: 4.11 is now the least recently served
      expect(() => r.resolve('4.10', 'x86_64')).toThrow(UnavailableError);
      const b = await waitFor(
        () => states(r)[0] === 'ready' && states(r)[1] === 'evicted' && r,
        'on-demand fetch of 4.10',
      );
      expect(b.resolve('4.12', 'x86_64')).toBe(c);
      const isos = (await cacheFiles(dataDir)).filter((f) => f.endsWith('.iso'));
      expect(isos).toEqual([variants[0]!, variants[2]!].map((v) => `sha256-${sha256(v)}.iso`).sort());
    });

    it('keeps images served recently and leaves the newcomer uncached, fetched when requested', async () => {
      const dataDir = newDataDir();
      const r = imageStore(three(), dataDir, budget(2 * iso.length + 4096, { evictionMinIdleMs: 60_000 }));
      await r.loadAll();
      expect(states(r)).toEqual(['ready', 'ready', 'evicted']);
      expect(r.health().images[2]!.reason).toMatch(/short by .* images served in the last 1m00s are kept/);
      const hits = server.hitsFor('/e3.iso').length;
      expect(() => r.resolve('4.12', 'x86_64')).toThrow(/not cached/);
      await waitFor(() => r.health().images[2]!.reason, 'on-demand attempt');
      expect(server.hitsFor('/e3.iso').length).toBe(hits); // refused from the known size, no request
    });

    it('refuses for good an image larger than the whole budget', async () => {
      const r = imageStore(
        [entry('4.17', server.url(server.serve('/big.iso', iso) && '/big.iso'))],
        newDataDir(),
        budget(1000),
      );
      await r.loadAll();
      expect(r.health().images[0]).toMatchObject({
        state: 'failed',
        reason: expect.stringMatching(/more than IMAGE_CACHE_MAX_BYTES/),
      });
    });

    it('closes the BaseFile of an evicted image only after the grace period', async () => {
      const dataDir = newDataDir();
      const r = imageStore(
        three().slice(0, 2),
        dataDir,
        budget(iso.length + 4096, { evictionMinIdleMs: 0, retireGraceMs: 1000 }),
      );
      await r.loadAll();
      expect(states(r)).toEqual(['evicted', 'ready']);
      const second = r.resolve('4.11', 'x86_64');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(() => r.resolve('4.10', 'x86_64')).toThrow(UnavailableError);
      await waitFor(() => states(r)[1] === 'evicted', 'eviction of 4.11');
      expect(second.base.isOpen).toBe(true); // a stream started before the eviction may still read
      expect((await second.base.readExactly(0, 16)).equals(iso.subarray(0, 16))).toBe(true);
      await waitFor(() => !second.base.isOpen, 'the grace period');
      // 4.10 is parsed in a worker again: under load that can outlast the 1 s grace period.
      await waitFor(() => ['ready', 'failed', 'evicted'].includes(states(r)[0]!), 'the reload of 4.10 to settle');
      expect(states(r)).toEqual(['ready', 'evicted']);
    });

    it('counts the minimal ISO rebuilt for a file:// source as its image’s after a restart, never as unreferenced', async () => {
      // issue 37: every restart logged "cache holds files of images no longer configured" and the
      // budget removed that minimal ISO first, while it was being served
      const dataDir = newDataDir();
      const local = [entry('4.16', `file://${MINISO_FIXTURE}`)];
      const minimalReady = (r: ManagedImageStore) => r.health().images[0]!.minimal_iso?.state === 'ready';
      const first = imageStore(local, dataDir);
      await first.loadAll();
      await waitFor(() => minimalReady(first), 'the minimal ISO');
      await first.close();
      const minimal = (await cacheFiles(dataDir)).find((f) => f.endsWith('.minimal.iso'))!;
      const minimalBytes = (await stat(path.join(dataDir, 'images', minimal))).size;

      const lines: string[] = [];
      const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
      const config = [...local, entry('4.17', server.url(server.serve('/beside.iso', variants[0]!) && '/beside.iso'))];
      const second = imageStore(config, dataDir, budget(minimalBytes + iso.length + 4096), logger);
      await second.loadAll();
      await waitFor(() => minimalReady(second), 'the minimal ISO after the restart');
      expect(lines.join('')).not.toContain('no longer configured');
      expect(states(second)).toEqual(['ready', 'ready']);
      expect(await cacheFiles(dataDir)).toContain(minimal);
      expect((await inspectCache(config, dataDir)).unreferenced).toEqual([]);
    });
  });
});
