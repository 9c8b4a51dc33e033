// Integrity of the image cache end to end (issue 23, item 4), on real parts: fixture ISOs from a
// loopback server, a real cache directory, bytes flipped with plain writes (and `touch -r` to put
// the mtime back). The recorded sha256 is compared, never replaced: a changed file is never
// served — at start or while serving — it is quarantined, reported in /health and fetched
// again; a file whose metadata alone changed is served again without a download; a local source
// that changed is the truth and is recorded anew.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, writeSync } from 'node:fs';
import { copyFile, open, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArtifactService } from '../artifacts/artifact-service.js';
import { UnavailableError } from '../errors.js';
import type { IgnitionSource } from '../image-ports/ignition-source.js';
import type { ManagedImageStore, ManagedImageStoreOptions } from './managed-image-store.js';
import { defaultImageStoreSettings } from './store-settings.js';
import { FIXTURE_ISO, MINISO_FIXTURE, entry, fixtureBytes, sha256 } from './test-support/images.js';
import { storeHarness } from './test-support/store-harness.js';
import { waitFor } from './test-support/wait.js';

const iso = fixtureBytes();
const ISO_SHA = sha256(iso);
/** Comparisons wait a second for a file to stop changing, then hash: leave room on a loaded machine. */
const SETTLED_MS = 20_000;

const ignition: IgnitionSource = {
  discoveryCustomization: async () => ({
    ignition: Buffer.from('{"ignition":{"version":"3.1.0"}}'),
    kernelArguments: [],
  }),
};

function integrity(overrides: Partial<ReturnType<typeof defaultImageStoreSettings>['integrity']> = {}) {
  const settings = defaultImageStoreSettings();
  return {
    settings: { ...settings, integrity: { ...settings.integrity, ...overrides } },
  } satisfies ManagedImageStoreOptions;
}

/** Writes `value` at `offset` in place; with `keepTimes`, atime and mtime are put back to the nanosecond. */
async function writeByte(file: string, offset: number, value: number, keepTimes = false): Promise<void> {
  if (keepTimes) execFileSync('touch', ['-r', file, `${file}.times`]);
  const handle = await open(file, 'r+');
  await handle.write(Buffer.from([value]), 0, 1, offset);
  await handle.close();
  if (keepTimes) {
    execFileSync('touch', ['-r', `${file}.times`, file]);
    await rm(`${file}.times`);
  }
}

/** The record naming the content-keyed ISO at `isoPath` (these tests configure one source per cache). */
function recordPath(isoPath: string): string {
  const dir = path.dirname(isoPath);
  const records = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.includes('.part'));
  expect(records).toHaveLength(1);
  return path.join(dir, records[0]!);
}

/** Every ready image the store ever published, read back where the kernel lies (checked after). */
function servedKernels(r: ManagedImageStore): Array<Promise<Buffer>> {
  const reads: Array<Promise<Buffer>> = [];
  r.subscribe(() => {
    const status = r.catalog.slots[0]!.status;
    if (status.state !== 'ready') return;
    const { kernel } = status.image.manifest.files;
    reads.push(status.image.base.readExactly(kernel!.offset, kernel!.length).catch(() => Buffer.alloc(0)));
  });
  return reads;
}

describe('cache integrity', () => {
  const { server, root, newDataDir, imageStore, states, cacheFiles } = storeHarness();

  it('quarantines a cached ISO whose kernel changed between restarts (mtime put back), fetches it again and never serves it', async () => {
    server.serve('/a.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/a.iso'))];
    const first = imageStore(config, dataDir, integrity({ quarantineKeep: 2 }));
    await first.loadAll();
    const { path: file } = first.resolve('4.17', 'x86_64').base;
    const kernel = first.resolve('4.17', 'x86_64').manifest.files.kernel!;
    const goodKernel = iso.subarray(kernel.offset, kernel.offset + kernel.length);
    await first.close();

    for (let round = 1; round <= 3; round++) {
      const at = kernel.offset + 100 * round;
      await writeByte(file, at, iso[at]! ^ 0xff, true);
      const flipped = await readFile(file);
      const hits = server.hitsFor('/a.iso').length;

      const r = imageStore(config, dataDir, integrity({ quarantineKeep: 2 }));
      const seen = new Set<string>();
      r.subscribe(() => seen.add(r.health().images[0]!.state));
      const served = servedKernels(r);
      await r.loadAll();

      expect(states(r)).toEqual(['ready']);
      expect([...seen]).toEqual(expect.arrayContaining(['verifying', 'downloading']));
      expect(server.hitsFor('/a.iso').length).toBe(hits + 1);
      for (const bytes of await Promise.all(served)) expect(bytes.equals(goodKernel)).toBe(true);
      const health = r.health().images[0]!;
      expect(health.sha256).toBe(ISO_SHA);
      expect(health.integrity).toMatchObject({
        state: 'verified',
        mismatches: 1,
        last_mismatch: {
          file: path.basename(file),
          reason: expect.stringMatching(/ctime.*its sha256 differs from the recorded one/),
          expected_sha256: ISO_SHA,
          actual_sha256: sha256(flipped),
          action: 'quarantined',
          quarantined_as: expect.stringMatching(/^quarantine\//),
        },
      });
      const quarantined = path.join(dataDir, 'images', health.integrity.last_mismatch!.quarantined_as!);
      expect((await readFile(quarantined)).equals(flipped)).toBe(true);
      expect(JSON.parse(await readFile(`${quarantined}.json`, 'utf8'))).toMatchObject({
        image: '4.17/x86_64',
        expectedSha256: ISO_SHA,
        actualSha256: sha256(flipped),
      });
      expect(JSON.parse(await readFile(recordPath(file), 'utf8')).iso.sha256).toBe(ISO_SHA);
      // IMAGE_QUARANTINE_KEEP=2: the oldest goes
      const kept = (await readdir(path.join(dataDir, 'images', 'quarantine'))).filter((f) => !f.endsWith('.json'));
      expect(kept).toHaveLength(Math.min(round, 2));
      await r.close();
    }
  });

  it('holds a served image at once when its file is written, closes what was built on it, and serves the fetched copy', async () => {
    server.serve('/b.iso', iso);
    const dataDir = newDataDir();
    const r = imageStore([entry('4.17', server.url('/b.iso'))], dataDir, integrity({ checkIntervalMs: 0 }));
    await r.loadAll();
    const artifacts = new ArtifactService(r.catalog, ignition, 'gzip', 'http://127.0.0.1:1');
    const before = r.resolve('4.17', 'x86_64');
    const kernelBefore = artifacts.bootArtifact('kernel', '4.17', 'x86_64').file;
    const goodKernel = await kernelBefore.read(0, kernelBefore.size - 1);
    const hits = server.hitsFor('/b.iso').length;
    const { offset } = before.manifest.files.kernel!;

    // inotify alone (the stat check is off): the next request already finds the image held
    await writeByte(before.base.path, offset + 7, iso[offset + 7]! ^ 0x01);
    const held = await waitFor(() => states(r)[0] !== 'ready' && r.health().images[0]!, 'the hold', 5_000);
    expect(held.integrity.state).toBe('checking');
    expect(() => r.resolve('4.17', 'x86_64')).toThrow(UnavailableError);
    expect(() => artifacts.bootArtifact('kernel', '4.17', 'x86_64')).toThrow(UnavailableError);
    expect(before.base.isOpen).toBe(false); // streams under way end; nothing more is read from it
    await expect(kernelBefore.read(0, 15)).rejects.toThrow(/closed/);

    await waitFor(
      () => states(r)[0] === 'ready' && r.health().images[0]!.integrity.mismatches === 1,
      'the new copy',
      SETTLED_MS,
    );
    expect(server.hitsFor('/b.iso').length).toBe(hits + 1);
    const kernelAfter = artifacts.bootArtifact('kernel', '4.17', 'x86_64').file;
    expect(kernelAfter).not.toBe(kernelBefore);
    expect((await kernelAfter.read(0, kernelAfter.size - 1)).equals(goodKernel)).toBe(true);
    expect(r.resolve('4.17', 'x86_64').base.identity).toBe(`sha256:${ISO_SHA}`);
    expect(r.health().images[0]!.integrity.last_mismatch).toMatchObject({
      action: 'quarantined',
      actual_sha256: expect.any(String),
    });
  });

  it('never hands on bytes read after a write, even before the change is noticed', async () => {
    server.serve('/g.iso', iso);
    const r = imageStore([entry('4.17', server.url('/g.iso'))], newDataDir(), integrity({ checkIntervalMs: 0 }));
    await r.loadAll();
    const image = r.resolve('4.17', 'x86_64');
    const { offset } = image.manifest.files.kernel!;
    const fd = openSync(image.base.path, 'r+');
    writeSync(fd, Buffer.from([iso[offset]! ^ 0xff]), 0, 1, offset); // no await: the first read comes before any event
    closeSync(fd);
    await expect(image.base.readExactly(offset, 16)).rejects.toThrow(/not served|closed/);
    await waitFor(
      () => r.health().images[0]!.integrity.mismatches === 1 && states(r)[0] === 'ready',
      'the new copy',
      SETTLED_MS,
    );
    const { base } = r.resolve('4.17', 'x86_64');
    expect((await base.readExactly(offset, 16)).equals(iso.subarray(offset, offset + 16))).toBe(true);
  });

  it('serves again, without a download, a file whose metadata alone changed', async () => {
    server.serve('/c.iso', iso);
    const dataDir = newDataDir();
    const r = imageStore([entry('4.17', server.url('/c.iso'))], dataDir, integrity({ checkIntervalMs: 200 }));
    await r.loadAll();
    const file = r.resolve('4.17', 'x86_64').base.path;
    const hashedBefore = r.health().images[0]!.integrity.hashed_at!;
    const hits = server.hitsFor('/c.iso').length;
    await utimes(file, new Date(), new Date(Date.now() - 60_000));
    await waitFor(() => states(r)[0] !== 'ready', 'the hold', 5_000);
    await waitFor(() => states(r)[0] === 'ready', 'the comparison', SETTLED_MS);
    expect(server.hitsFor('/c.iso').length).toBe(hits);
    const health = r.health().images[0]!;
    expect(health.integrity).toMatchObject({ state: 'verified', mismatches: 0 });
    expect(Date.parse(health.integrity.hashed_at!)).toBeGreaterThan(Date.parse(hashedBefore));
    const record = JSON.parse(await readFile(recordPath(file), 'utf8'));
    expect(record.iso).toMatchObject({ sha256: ISO_SHA, mtimeMs: (await stat(file)).mtimeMs });
    expect(record.distrusted).toBeUndefined();
  });

  it('finds with the background re-hash a change that kept the stat, and quarantines the file', async () => {
    server.serve('/d.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/d.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    const file = first.resolve('4.17', 'x86_64').base.path;
    await first.close();
    // what bit rot or a write through the block device leaves: other bytes, the recorded stat
    await writeByte(file, 40_000, iso[40_000]! ^ 0x80);
    const record = JSON.parse(await readFile(recordPath(file), 'utf8'));
    const st = await stat(file);
    Object.assign(record.iso, { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
    await writeFile(recordPath(file), JSON.stringify(record));
    const hits = server.hitsFor('/d.iso').length;

    const r = imageStore(config, dataDir, integrity({ checkIntervalMs: 0, rehashIntervalMs: 300 }));
    await r.loadAll();
    expect(r.health().images[0]!.integrity.next_hash_at).toBeDefined();
    await waitFor(
      () => r.health().images[0]!.integrity.mismatches === 1 && states(r)[0] === 'ready',
      'the re-hash',
      SETTLED_MS,
    );
    expect(server.hitsFor('/d.iso').length).toBe(hits + 1);
    expect(r.health().images[0]!.integrity.last_mismatch!.reason).toMatch(/background re-hash/);
    expect((await readFile(file)).equals(iso)).toBe(true);
  });

  it('compares at start a file whose comparison a stopped process left pending, whatever its stat', async () => {
    server.serve('/e.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/e.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    const file = first.resolve('4.17', 'x86_64').base.path;
    await first.close();
    await writeByte(file, 50_000, iso[50_000]! ^ 0x80);
    const record = JSON.parse(await readFile(recordPath(file), 'utf8'));
    const st = await stat(file);
    Object.assign(record.iso, { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
    record.distrusted = 'the background re-hash found another sha256';
    await writeFile(recordPath(file), JSON.stringify(record));

    const r = imageStore(config, dataDir, integrity({ rehashIntervalMs: 0 }));
    const served = servedKernels(r);
    await r.loadAll();
    expect(r.health().images[0]!.integrity.mismatches).toBe(1);
    expect(served.length).toBeGreaterThan(0);
    expect((await readFile(file)).equals(iso)).toBe(true);
    expect(JSON.parse(await readFile(recordPath(file), 'utf8')).distrusted).toBeUndefined();
  });

  it('quarantines a stored ISO that no record vouches for and whose bytes differ from its name, and fetches it again', async () => {
    server.serve('/f.iso', iso);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/f.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    const file = first.resolve('4.17', 'x86_64').base.path;
    await first.close();
    await rm(recordPath(file));
    await writeByte(file, 60_000, iso[60_000]! ^ 0xff);
    const hits = server.hitsFor('/f.iso').length;

    const r = imageStore(config, dataDir);
    await r.loadAll();
    expect(server.hitsFor('/f.iso').length).toBe(hits + 1);
    expect(r.health().images[0]!.integrity.last_mismatch).toMatchObject({
      reason: expect.stringMatching(/no record vouches for it.*its sha256 differs from its name/),
      action: 'quarantined',
    });
    expect((await readFile(file)).equals(iso)).toBe(true);
  });

  it('follows a moved or copied DATA_DIR without a download: a copy (new inodes) is hashed and matches', async () => {
    server.serve('/h.iso', iso);
    let dataDir = newDataDir();
    const config = [entry('4.17', server.url('/h.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    await first.close();
    const hits = server.hitsFor('/h.iso').length;
    for (const how of ['mv', 'cp'] as const) {
      const target = newDataDir();
      execFileSync(how, how === 'cp' ? ['-a', dataDir, target] : [dataDir, target]);
      dataDir = target;
      const r = imageStore(config, dataDir);
      const seen = new Set<string>();
      r.subscribe(() => seen.add(states(r)[0]!));
      await r.loadAll();
      expect(states(r)).toEqual(['ready']);
      expect(seen.has('verifying')).toBe(how === 'cp'); // renamed: same inodes and ctimes, nothing to hash
      expect(r.resolve('4.17', 'x86_64').base.path.startsWith(`${dataDir}/`)).toBe(true);
      expect(r.health().images[0]!.integrity.mismatches).toBe(0);
      await r.close();
      const images = path.join(dataDir, 'images');
      const recordFile = (await readdir(images)).find((f) => f.endsWith('.json'))!;
      expect(JSON.parse(await readFile(path.join(images, recordFile), 'utf8')).iso.path.startsWith(images)).toBe(true);
    }
    expect(server.hitsFor('/h.iso').length).toBe(hits);
  });

  it('quarantines a changed minimal ISO and builds it again, without fetching the full ISO again', async () => {
    const full = await readFile(MINISO_FIXTURE);
    server.serve('/m.iso', full);
    const dataDir = newDataDir();
    const config = [entry('4.17', server.url('/m.iso'))];
    const first = imageStore(config, dataDir);
    await first.loadAll();
    await waitFor(() => first.health().images[0]!.minimal_iso?.state === 'ready', 'the minimal ISO', SETTLED_MS);
    const minimal = first.resolve('4.17', 'x86_64').minimal!.base.path;
    const good = await readFile(minimal);
    await first.close();
    await writeByte(minimal, 70_000, good[70_000]! ^ 0x01);
    const hits = server.hitsFor('/m.iso').length;

    const r = imageStore(config, dataDir);
    await r.loadAll();
    await waitFor(() => r.health().images[0]!.minimal_iso?.state === 'ready', 'the rebuilt minimal ISO', SETTLED_MS);
    expect(server.hitsFor('/m.iso').length).toBe(hits);
    expect((await readFile(minimal)).equals(good)).toBe(true);
    expect(r.health().images[0]!.integrity.last_mismatch).toMatchObject({
      file: path.basename(minimal),
      expected_sha256: sha256(good),
      action: 'quarantined',
    });
  });

  it('takes a local source changed on purpose as the truth: verified again, recorded anew, never moved', async () => {
    const local = path.join(root(), 'local.iso');
    await copyFile(FIXTURE_ISO, local);
    const dataDir = newDataDir();
    const r = imageStore([entry('4.17', local)], dataDir, integrity({ checkIntervalMs: 200 }));
    await r.loadAll();
    expect(r.health().images[0]!.sha256).toBe(ISO_SHA);
    const replacement = await readFile(MINISO_FIXTURE); // another valid live ISO
    await writeFile(local, replacement);
    await waitFor(
      () => r.health().images[0]!.sha256 === sha256(replacement) && states(r)[0] === 'ready',
      'the new content',
      SETTLED_MS,
    );
    expect(r.resolve('4.17', 'x86_64').base.path).toBe(local);
    expect(r.health().images[0]!.integrity.last_mismatch).toMatchObject({
      file: local,
      expected_sha256: ISO_SHA,
      actual_sha256: sha256(replacement),
      action: 're-recorded',
    });
    expect(await cacheFiles(dataDir)).not.toContain('quarantine');

    await writeFile(local, Buffer.alloc(200_000, 0x42)); // not an ISO any more
    await waitFor(() => states(r)[0] === 'failed', 'the failure', SETTLED_MS);
    expect(r.health().images[0]!.reason).toMatch(/not a usable CoreOS live ISO/);
    expect((await stat(local)).size).toBe(200_000);
  });
});
