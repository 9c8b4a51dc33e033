// The image store's minimal ISO variant end to end: rebuilt once from coreos/miniso.dat into the
// cache and reused, and every failure kept to the variant while the full ISO is still served.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { HAVE_XORRISO, HAVE_XZ, MINISO_FIXTURE, entry, isoWithMinisoDat, sha256 } from '../test-support/images.js';
import { storeHarness } from '../test-support/store-harness.js';
import { type RebuildMinimalIso, rebuildMinimalIsoFromMinisoDat } from './rebuild-minimal-iso.js';

describe('ManagedImageStore', () => {
  const { root, newDataDir, imageStore, cacheFiles } = storeHarness();

  describe.skipIf(unavailable({ xz: HAVE_XZ, 'fixtures/iso/x86_64-miniso.iso': existsSync(MINISO_FIXTURE) }))(
    'minimal ISO variant',
    () => {
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
        const first = imageStore(config, dataDir, { rebuildMinimalIso });
        await first.loadAll();
        const image = first.resolve('4.17', 'x86_64');
        expect(image.minimalState).toEqual({ state: 'ready' });
        expect(image.minimal?.base.identity).toBe(`sha256:${MINIMAL_SHA}`);
        expect(image.minimal?.base.path).toMatch(/images\/sha256-[0-9a-f]{64}\.minimal\.iso$/);
        expect(sha256(await readFile(image.minimal!.base.path))).toBe(MINIMAL_SHA);
        expect(image.minimal?.manifest.files.rootfs).toBeUndefined();
        expect(image.minimal?.manifest.ignition.length).toBe(image.manifest.ignition.length);
        expect(first.images()[0]!.minimalIsoSupported).toBe(true);
        expect(first.health().images[0]!.minimal_iso).toEqual({ state: 'ready' });
        await first.close();

        const second = imageStore(config, dataDir, { rebuildMinimalIso });
        await second.loadAll();
        expect(second.resolve('4.17', 'x86_64').minimal?.base.identity).toBe(`sha256:${MINIMAL_SHA}`);
        expect(calls).toEqual([MINISO_FIXTURE]);
      });

      it.skipIf(unavailable({ xorriso: HAVE_XORRISO }))(
        'marks only the minimal variant failed when miniso.dat is corrupt',
        async () => {
          const dir = await mkdtemp(path.join(root(), 'corrupt-'));
          const corrupt = isoWithMinisoDat(dir, Buffer.alloc(16 * 1024, 0x5a));
          const dataDir = newDataDir();
          const r = imageStore([entry('4.17', corrupt)], dataDir);
          await r.loadAll();
          const image = r.resolve('4.17', 'x86_64');
          expect(image.minimal).toBeUndefined();
          expect(image.minimalState).toEqual({ state: 'failed', reason: expect.stringMatching(/miniso\.dat/) });
          expect(r.health().images[0]).toMatchObject({ state: 'ready', minimal_iso: { state: 'failed' } });
          expect(r.images()[0]!.minimalIsoSupported).toBe(false);
          expect((await cacheFiles(dataDir)).filter((f) => f.includes('minimal'))).toEqual([]);
        },
      );

      it('rejects a rebuilt minimal ISO that does not parse', async () => {
        const rebuildMinimalIso: RebuildMinimalIso = async (_full, _manifest, out) => {
          await writeFile(out, 'garbage');
          return { sha256: sha256(Buffer.from('garbage')) };
        };
        const r = imageStore([entry('4.17', MINISO_FIXTURE)], newDataDir(), { rebuildMinimalIso });
        await r.loadAll();
        expect(r.resolve('4.17', 'x86_64').minimalState).toMatchObject({
          state: 'failed',
          reason: expect.stringMatching(/minimal ISO: not a usable CoreOS live ISO/),
        });
      });
    },
  );
});
