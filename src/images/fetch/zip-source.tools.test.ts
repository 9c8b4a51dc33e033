// The image store with zip sources end to end (zips built with the zip CLI, served over loopback
// HTTP or read locally): the single ISO is extracted into the cache, bad zips fail clearly.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { HAVE_ZIP, entry, fixtureBytes, makeZip, sha256 } from '../test-support/images.js';
import { storeHarness } from '../test-support/store-harness.js';

const iso = fixtureBytes();
const ISO_SHA = sha256(iso);

describe('ManagedImageStore', () => {
  const { server, root, newDataDir, imageStore, states, cacheFiles } = storeHarness();

  describe.skipIf(unavailable({ zip: HAVE_ZIP }))('zip sources', () => {
    it('extracts the single ISO of a downloaded zip, verifies it and removes the zip', async () => {
      const zip = makeZip(root(), 'one.zip', { 'rhcos/live.iso': iso, 'README.txt': Buffer.from('hi') });
      server.serve('/one.zip', await readFile(zip));
      const dataDir = newDataDir();
      const r = imageStore([entry('4.17', server.url('/one.zip'), { sha256: ISO_SHA })], dataDir);
      await r.loadAll();
      expect(states(r)).toEqual(['ready']);
      expect(r.resolve('4.17', 'x86_64').base.identity).toBe(`sha256:${ISO_SHA}`);
      expect((await cacheFiles(dataDir)).some((f) => f.includes('.zip'))).toBe(false);
    });

    it('extracts a local zip into the cache', async () => {
      const zip = makeZip(root(), 'local.zip', { 'live.iso': iso });
      const r = imageStore([entry('4.17', zip)], newDataDir());
      await r.loadAll();
      expect(r.resolve('4.17', 'x86_64').base.path).toMatch(/images\/sha256-[0-9a-f]{64}\.iso$/);
    });

    it.each([
      ['no ISO', { 'a.txt': Buffer.from('x') }, /holds 0 \.iso files; expected exactly one/],
      ['two ISOs', { 'a.iso': iso, 'b.iso': iso }, /holds 2 \.iso files \(a\.iso, b\.iso\)/],
    ])('fails a zip with %s', async (name, files, reason) => {
      const zip = makeZip(root(), `${name.replace(' ', '-')}.zip`, files);
      const r = imageStore([entry('4.17', zip)], newDataDir());
      await r.loadAll();
      expect(r.health().images[0]).toMatchObject({ state: 'failed', reason: expect.stringMatching(reason) });
    });

    it('fails a file that is not a zip at all', async () => {
      const fake = path.join(root(), 'fake.zip');
      await writeFile(fake, 'PK but not really');
      const r = imageStore([entry('4.17', fake)], newDataDir());
      await r.loadAll();
      expect(r.health().images[0]).toMatchObject({
        state: 'failed',
        reason: expect.stringMatching(/not a readable zip archive/),
      });
    });
  });
});
