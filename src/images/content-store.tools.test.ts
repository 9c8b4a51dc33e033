// One stored copy per distinct ISO (issue 28 deliverable 3), on real parts (a counting loopback
// origin, the fixture ISO, a real cache directory): entries naming one ISO cost one download and
// one file; sources whose ISOs turn out to be the same bytes end in one file (the second copy
// dropped once its digest is known); a configured sha256 adopts a stored file without a download;
// eviction takes a shared file only with every entry served from it; /health names the sharers;
// a DATA_DIR of the layout before content keying keeps working without a download; a base image
// on a block device (a real loop device) is served as a file is.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { toolWorks, unavailable } from '../../test/support/requirements.js';
import { parseLiveIso } from '../iso/live-layout.js';
import { legacyNames, urlDigest } from './cache/cache-layout.js';
import { defaultImageStoreSettings } from './store-settings.js';
import { entry, fixtureBytes, fixtureVariant, sha256 } from './test-support/images.js';
import { storeHarness } from './test-support/store-harness.js';
import { waitFor } from './test-support/wait.js';

const iso = fixtureBytes();
const ISO_SHA = sha256(iso);
/** Loop devices: root, losetup and the kernel's loop driver. */
const CAN_LOOP = process.getuid?.() === 0 && existsSync('/dev/loop-control') && toolWorks('losetup', ['--version']);

describe('one stored copy per distinct ISO', () => {
  const { server, root, newDataDir, imageStore, states, cacheFiles } = storeHarness();
  const isosIn = async (dataDir: string) => (await cacheFiles(dataDir)).filter((f) => f.endsWith('.iso'));

  it('three entries naming one ISO: one download, one stored file, shared by all three', async () => {
    server.serve('/rhcos-417.iso', iso, { chunkBytes: 64 * 1024, delayMs: 2 });
    const url = server.url('/rhcos-417.iso');
    const dataDir = newDataDir();
    const r = imageStore([entry('4.16', url), entry('4.17', url), entry('4.18', url)], dataDir);
    await r.loadAll();
    expect(states(r)).toEqual(['ready', 'ready', 'ready']);
    // measured on the origin: the whole ISO was asked for once
    expect(server.hitsFor('/rhcos-417.iso').filter((h) => h.method === 'GET')).toHaveLength(1);
    expect(await isosIn(dataDir)).toEqual([`sha256-${ISO_SHA}.iso`]);
    const health = r.health().images;
    expect(health.map((h) => h.file)).toEqual(Array(3).fill(`sha256-${ISO_SHA}.iso`));
    expect(health.map((h) => h.shared_with)).toEqual([
      ['4.17 x86_64', '4.18 x86_64'],
      ['4.16 x86_64', '4.18 x86_64'],
      ['4.16 x86_64', '4.17 x86_64'],
    ]);
    // each entry is served as itself (its own version), from the one opened file
    const served = ['4.16', '4.17', '4.18'].map((v) => r.resolve(v, 'x86_64'));
    expect(served.map((s) => s.entry.openshiftVersion)).toEqual(['4.16', '4.17', '4.18']);
    expect(new Set(served.map((s) => s.base)).size).toBe(1);
  });

  it('two URLs with the same bytes end in one file; a configured sha256 adopts it without a download', async () => {
    server.serve('/mirror-a.iso', iso).serve('/mirror-b.iso', iso).serve('/mirror-c.iso', iso);
    const dataDir = newDataDir();
    const first = imageStore([entry('4.16', server.url('/mirror-a.iso'))], dataDir);
    await first.loadAll();
    const r = imageStore(
      [
        entry('4.16', server.url('/mirror-a.iso')),
        entry('4.17', server.url('/mirror-b.iso')),
        entry('4.18', server.url('/mirror-c.iso'), { sha256: ISO_SHA }),
      ],
      dataDir,
      { settings: { ...defaultImageStoreSettings(), concurrency: 1 } },
    );
    await first.close();
    await r.loadAll();
    expect(states(r)).toEqual(['ready', 'ready', 'ready']);
    expect(server.hitsFor('/mirror-b.iso').filter((h) => h.method === 'GET')).toHaveLength(1); // unknown until fetched
    expect(server.hitsFor('/mirror-c.iso')).toHaveLength(0); // known by its sha256: the stored file is it
    expect(await isosIn(dataDir)).toEqual([`sha256-${ISO_SHA}.iso`]);
    expect(r.health().images[1]!.shared_with).toEqual(['4.16 x86_64', '4.18 x86_64']);
  });

  it('evicts a shared file only with every entry served from it, and counts its bytes once', async () => {
    const other = fixtureVariant(7);
    server.serve('/shared.iso', iso).serve('/alone.iso', other).serve('/late.iso', fixtureVariant(8));
    const dataDir = newDataDir();
    const shared = server.url('/shared.iso');
    const r = imageStore(
      [
        entry('4.10', shared),
        entry('4.11', shared),
        entry('4.12', server.url('/alone.iso')),
        entry('4.13', server.url('/late.iso')),
      ],
      dataDir,
      {
        // room for two ISOs: the shared one counts once, so three entries fit; the fourth needs an eviction
        settings: { ...defaultImageStoreSettings(), concurrency: 1, cacheMaxBytes: 2 * iso.length + 4096 },
        evictionMinIdleMs: 0,
        retireGraceMs: 50,
      },
    );
    await r.loadAll();
    // the least recently served file went: the shared one (ready first), for both its entries at once
    expect(states(r)).toEqual(['evicted', 'evicted', 'ready', 'ready']);
    expect(r.health().images[0]!.reason).toMatch(/IMAGE_CACHE_MAX_BYTES/);
    expect(await isosIn(dataDir)).toEqual(
      [`sha256-${sha256(other)}.iso`, `sha256-${sha256(fixtureVariant(8))}.iso`].sort(),
    );
  });

  it('a shared file that changes while served holds every entry on it, is quarantined once, and ends as one file again', async () => {
    server.serve('/share-a.iso', iso).serve('/share-b.iso', iso);
    const dataDir = newDataDir();
    const r = imageStore(
      [entry('4.16', server.url('/share-a.iso')), entry('4.17', server.url('/share-b.iso'))],
      dataDir,
      {
        settings: {
          ...defaultImageStoreSettings(),
          concurrency: 1,
          integrity: { ...defaultImageStoreSettings().integrity, checkIntervalMs: 200, rehashIntervalMs: 0 },
        },
      },
    );
    await r.loadAll();
    expect(await isosIn(dataDir)).toEqual([`sha256-${ISO_SHA}.iso`]);
    const file = r.resolve('4.16', 'x86_64').base.path;
    expect(r.resolve('4.17', 'x86_64').base.path).toBe(file);
    const seen = new Map<string, Set<string>>();
    r.subscribe(() => {
      for (const h of r.health().images)
        seen.set(h.openshift_version, (seen.get(h.openshift_version) ?? new Set()).add(h.state));
    });
    const handle = await open(file, 'r+');
    await handle.write(Buffer.from([iso[40_000]! ^ 0xff]), 0, 1, 40_000);
    await handle.close();
    await waitFor(
      () => states(r).every((s) => s === 'ready') && r.health().images.some((h) => h.integrity.mismatches > 0) && r,
      'both entries served again',
    );
    // both were held, the changed file went to the quarantine once, the ISO is one file again
    for (const v of ['4.16', '4.17']) expect([...seen.get(v)!], v).toContain('verifying');
    expect(r.health().images.reduce((n, h) => n + h.integrity.mismatches, 0)).toBe(1);
    expect(await isosIn(dataDir)).toEqual([`sha256-${ISO_SHA}.iso`]);
    expect(r.health().images.map((h) => h.file)).toEqual([`sha256-${ISO_SHA}.iso`, `sha256-${ISO_SHA}.iso`]);
    for (const v of ['4.16', '4.17'])
      expect((await r.resolve(v, 'x86_64').base.readExactly(0, iso.length)).equals(iso), v).toBe(true);
  });

  it('adopts a cache of the layout before content keying: no download, one file for its versions', async () => {
    server.serve('/legacy.iso', iso);
    const url = server.url('/legacy.iso');
    const entries = [entry('4.16', url), entry('4.17', url)];
    const dataDir = newDataDir();
    const dir = path.join(dataDir, 'images');
    await mkdir(dir, { recursive: true });
    // what the build before content keying left: one copy (and one record) per openshift_version,
    // records of that build's form (absolute paths, no inode/ctime: an older record still)
    const manifest = await parseLiveIso(await writeIso(path.join(dataDir, 'probe.iso')));
    for (const name of legacyNames(entries)) {
      const file = path.join(dir, `${name}.iso`);
      await writeFile(file, iso);
      const at = new Date('2026-01-02T03:04:05Z');
      await utimes(file, at, at);
      const st = await stat(file);
      const e = entries.find((x) => name.startsWith(`${x.openshiftVersion}-`))!;
      await writeFile(
        path.join(dir, `${name}.json`),
        JSON.stringify({
          recordVersion: 1,
          source: {
            url,
            urlSha256: urlDigest(url),
            openshiftVersion: e.openshiftVersion,
            version: e.version,
            cpuArchitecture: 'x86_64',
          },
          inPlace: false,
          iso: { path: file, size: st.size, mtimeMs: st.mtimeMs, sha256: ISO_SHA, manifest },
          verifiedAt: '2026-01-02T03:04:05.000Z',
          lastServedAt: '2026-01-03T00:00:00.000Z',
        }),
      );
    }
    const r = imageStore(entries, dataDir);
    await r.loadAll();
    expect(states(r)).toEqual(['ready', 'ready']);
    expect(server.hitsFor('/legacy.iso')).toHaveLength(0);
    const files = await cacheFiles(dataDir);
    expect(files.filter((f) => f.endsWith('.iso'))).toEqual([`sha256-${ISO_SHA}.iso`]);
    expect(files.filter((f) => /^4\.1[67]-/.test(f))).toEqual([]); // the old names are gone
    const record = JSON.parse(
      await readFile(
        path.join(
          dir,
          files.find((f) => f.endsWith('.json'))!,
        ),
        'utf8',
      ),
    );
    expect(record).toMatchObject({ iso: { sha256: ISO_SHA }, lastServedAt: '2026-01-03T00:00:00.000Z' });
    expect((await readFile(path.join(dir, `sha256-${ISO_SHA}.iso`))).equals(iso)).toBe(true);
    expect(
      createHash('sha256')
        .update(await readFile(r.resolve('4.17', 'x86_64').base.path))
        .digest('hex'),
    ).toBe(ISO_SHA);
  });

  it.skipIf(unavailable({ 'root, losetup and /dev/loop-control (a loop device)': CAN_LOOP }))(
    'serves a base image on a block device (a loop device) as a file: copied once, the device not read after a restart',
    async () => {
      const bytes = fixtureVariant(11);
      const backing = path.join(root(), 'loop-backing.iso');
      await writeFile(backing, bytes);
      const device = execFileSync('losetup', ['--find', '--show', '--read-only', backing], { encoding: 'utf8' }).trim();
      let attached = true;
      const detach = () => {
        if (attached) execFileSync('losetup', ['--detach', device]);
        attached = false;
      };
      onTestFinished(detach);
      const config = [entry('4.19', `file://${device}`)];
      const dataDir = newDataDir();
      const r = imageStore(config, dataDir);
      await r.loadAll();
      expect(states(r), r.health().images[0]!.reason).toEqual(['ready']);
      const image = r.resolve('4.19', 'x86_64');
      expect(image.base.identity).toBe(`sha256:${sha256(bytes)}`);
      expect((await image.base.readExactly(0, bytes.length)).equals(bytes)).toBe(true);
      expect(r.health().images[0]).toMatchObject({ source: `file://${device}`, file: `sha256-${sha256(bytes)}.iso` });
      await r.close();

      detach(); // the copy is what is served: the device is not needed again
      const again = imageStore(config, dataDir);
      await again.loadAll();
      expect(states(again)).toEqual(['ready']);
      expect(again.resolve('4.19', 'x86_64').base.identity).toBe(`sha256:${sha256(bytes)}`);
    },
  );
});

async function writeIso(file: string): Promise<string> {
  await writeFile(file, iso);
  return file;
}
