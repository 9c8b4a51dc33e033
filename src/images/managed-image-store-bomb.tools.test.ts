// An image over a parsing budget in the store (issue 15, finding 2): failed with the budget in
// its reason, never retried, and the other images are served as usual.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rockRidgeChainBomb } from '../iso/test-support/crafted-iso.js';
import { makeTempDir, removeDir } from '../iso/test-support/fixtures.js';
import { createLogger } from '../logger.js';
import { ManagedImageStore } from './managed-image-store.js';
import { FIXTURE_ISO, entry } from './test-support/images.js';

describe('a Rock Ridge bomb in the configuration', () => {
  let dir: string;
  let bomb: string;
  beforeAll(() => {
    dir = makeTempDir('imageStore-bomb');
    bomb = path.join(dir, 'bomb.iso');
    writeFileSync(bomb, rockRidgeChainBomb({ records: 30_000, chainLength: 32, areaBytes: 2048 }));
  });
  afterAll(() => removeDir(dir));

  it('fails only that image, for good, with the budget named', async () => {
    const imageStore = new ManagedImageStore(
      [entry('4.1', `file://${bomb}`), entry('4.16', `file://${FIXTURE_ISO}`)],
      [],
      createLogger('silent'),
      {
        dataDir: path.join(dir, 'data'),
      },
    );
    try {
      await imageStore.loadAll();
      const [bad, good] = imageStore.health().images;
      expect(bad).toMatchObject({ state: 'failed' });
      expect(bad?.reason).toMatch(
        /^4\.1 x86_64: not a usable CoreOS live ISO: parsing .*bomb\.iso: budget rock-ridge-name-bytes exceeded/,
      );
      expect(bad?.retry_at).toBeUndefined();
      expect(good).toMatchObject({ state: 'ready' });
      expect(imageStore.resolve('4.16', 'x86_64').base.path).toBe(FIXTURE_ISO);
    } finally {
      await imageStore.close();
    }
  });
});
