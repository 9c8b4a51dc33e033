// A download that fills the disk (issue 15, finding 5), on a real 8 MiB tmpfs: the partial file
// and its sidecar are removed at once, the image is failed with a reason naming the disk and a
// retry time on the slow schedule, and the space is free again for everything else.
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { diskFullCode } from './disk-full.js';
import { ManagedImageStore } from '../managed-image-store.js';
import { entry } from '../test-support/images.js';
import { IsoServer } from '../test-support/iso-server.js';
import { type Tmpfs, requireTmpfs } from '../test-support/tmpfs.js';

const TMPFS_BYTES = 8 * 1024 * 1024;
const mounted = requireTmpfs(TMPFS_BYTES);
if ('reason' in mounted) console.warn(`skipping the full-disk tests: ${mounted.reason}`);

describe.skipIf('reason' in mounted)('a download on a full disk (8 MiB tmpfs)', () => {
  const fs = mounted as Tmpfs;
  const server = new IsoServer();
  beforeAll(() => server.start());
  afterAll(async () => {
    await server.stop();
    fs.unmount();
  });

  it('removes the partial file, fails the image naming the disk, backs off, and frees the space', async () => {
    const big = Buffer.alloc(12 * 1024 * 1024, 0x42); // larger than the whole tmpfs
    server.serve('/big.iso', big, { chunkBytes: 256 * 1024 });
    const dataDir = path.join(fs.dir, 'data');
    const imageStore = new ManagedImageStore([entry('4.17', server.url('/big.iso'))], [], createLogger('silent'), {
      dataDir,
      retry: { attempts: 3, baseDelayMs: 10, slowDelayMs: 60_000 },
    });
    try {
      const started = Date.now();
      await imageStore.loadAll();
      const [image] = imageStore.health().images;
      expect(image?.state).toBe('failed');
      expect(image?.reason).toMatch(
        new RegExp(`the disk holding ${path.join(dataDir, 'images')} is full \\(ENOSPC\\)`),
      );
      expect(Date.parse(image!.retry_at!)).toBeGreaterThanOrEqual(started + 60_000);
      // one request only: a full disk is not retried at once
      expect(server.hitsFor('/big.iso')).toHaveLength(1);
      expect((await readdir(path.join(dataDir, 'images'))).filter((f) => f.includes('.part'))).toEqual([]);
      // the space is back for the rest of the process (the database, other images)
      expect(fs.free()).toBeGreaterThan(TMPFS_BYTES - 512 * 1024);
      await writeFile(path.join(fs.dir, 'database-file'), Buffer.alloc(6 * 1024 * 1024));
    } finally {
      await imageStore.close();
    }
  });

  it('finds ENOSPC anywhere in a chain of causes', () => {
    const inner = Object.assign(new Error('write failed'), { code: 'ENOSPC' });
    expect(diskFullCode(new Error('outer', { cause: new Error('middle', { cause: inner }) }))).toBe('ENOSPC');
    expect(diskFullCode(new Error('no code'))).toBeUndefined();
  });
});
