// A download onto a full disk (issue 15, finding 5), on a real 8 MiB tmpfs. A source that
// announces its size is refused before a byte is written when it would not leave
// IMAGE_DISK_RESERVE_BYTES free (issue 23); one that announces none fills the disk, and then the
// partial file and its sidecar are removed at once. Either way the image is failed with a
// reason naming the disk and a retry time on the slow schedule, and the space is free again for
// everything else. Recognising a full disk in an error is src/images/load-failure/disk-full.test.ts.
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { ManagedImageStore } from '../managed-image-store.js';
import { defaultImageStoreSettings } from '../store-settings.js';
import { entry } from '../test-support/images.js';
import { IsoServer } from '../test-support/iso-server.js';
import { type Tmpfs, requireTmpfs } from '../test-support/tmpfs.js';

const TMPFS_BYTES = 8 * 1024 * 1024;

const mounted = requireTmpfs(TMPFS_BYTES);
if ('reason' in mounted) console.warn(`skipping the full-disk tests: ${mounted.reason}`);

describe.skipIf('reason' in mounted)('a download on a full disk (8 MiB tmpfs)', () => {
  const fs = mounted as Tmpfs;
  const server = new IsoServer();
  const big = Buffer.alloc(12 * 1024 * 1024, 0x42); // larger than the whole tmpfs
  beforeAll(() => server.start());
  afterAll(async () => {
    await server.stop();
    fs.unmount();
  });

  async function load(route: string, name: string, reserve: string) {
    const dataDir = path.join(fs.dir, name);
    const imageStore = new ManagedImageStore([entry('4.17', server.url(route))], [], createLogger('silent'), {
      dataDir,
      settings: { ...defaultImageStoreSettings(), diskReserveBytes: Number(reserve) },
      retry: { attempts: 3, baseDelayMs: 10, slowDelayMs: 60_000 },
    });
    const started = Date.now();
    try {
      await imageStore.loadAll();
      const [image] = imageStore.health().images;
      expect(image?.state).toBe('failed');
      expect(Date.parse(image!.retry_at!)).toBeGreaterThanOrEqual(started + 60_000);
      // one request only: a full disk is not retried at once
      expect(server.hitsFor(route)).toHaveLength(1);
      expect((await readdir(path.join(dataDir, 'images'))).filter((f) => f.includes('.part'))).toEqual([]);
      // the space is back for the rest of the process (the database, other images)
      expect(fs.free()).toBeGreaterThan(TMPFS_BYTES - 512 * 1024);
      await writeFile(path.join(fs.dir, 'database-file'), Buffer.alloc(6 * 1024 * 1024));
      await rm(path.join(fs.dir, 'database-file'));
      return { reason: image!.reason!, dataDir };
    } finally {
      await imageStore.close();
    }
  }

  it('refuses a download whose announced size would not leave the reserve free, before writing a byte', async () => {
    server.serve('/announced.iso', big, { chunkBytes: 256 * 1024 });
    const { reason, dataDir } = await load('/announced.iso', 'announced', String(1024 * 1024));
    expect(reason).toMatch(
      new RegExp(
        `the disk holding ${path.join(dataDir, 'images')} is too full: the image needs 12 MiB more, .* are free and 1\\.0 MiB stay free .*IMAGE_DISK_RESERVE_BYTES.*nothing was written`,
      ),
    );
  });

  it('removes the partial file of a download of unknown size that fills the disk, naming the disk', async () => {
    server.serve('/unsized.iso', big, { chunkBytes: 256 * 1024, chunked: true });
    const { reason, dataDir } = await load('/unsized.iso', 'unsized', '0');
    expect(reason).toMatch(new RegExp(`the disk holding ${path.join(dataDir, 'images')} is full \\(ENOSPC\\)`));
  });
});
