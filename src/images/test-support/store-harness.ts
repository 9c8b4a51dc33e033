// Test support: the shared set-up of the image store's end-to-end tests — a loopback IsoServer,
// a temporary root for cache directories, and stores that are all closed after the file.
// Does: register beforeAll/afterAll in the calling describe block and hand back the helpers.
// Does NOT: assert anything.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '../../logger.js';
import { type ManagedImageStoreOptions, ManagedImageStore } from '../managed-image-store.js';
import type { OsImageEntry } from '../os-images-config.js';
import { IsoServer } from './iso-server.js';

export function storeHarness() {
  const logger = createLogger('silent');
  const server = new IsoServer();
  let root = '';
  const open: ManagedImageStore[] = [];
  let counter = 0;

  beforeAll(async () => {
    await server.start();
    root = await mkdtemp(path.join(tmpdir(), 'bootsmith-image-store-'));
  });
  afterAll(async () => {
    await Promise.all(open.map((r) => r.close()));
    await server.stop();
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  return {
    server,
    /** The temporary directory of this test file (set once beforeAll ran). */
    root: () => root,
    newDataDir: () => path.join(root, `data-${++counter}`),
    imageStore: (
      entries: OsImageEntry[],
      dataDir: string | undefined,
      options: ManagedImageStoreOptions = {},
      storeLogger: Logger = logger,
    ) => {
      const r = new ManagedImageStore(entries, [], storeLogger, {
        ...(dataDir ? { dataDir } : {}),
        retry: { attempts: 2, baseDelayMs: 10, slowDelayMs: 60_000 },
        ...options,
      });
      open.push(r);
      return r;
    },
    states: (r: ManagedImageStore) => r.health().images.map((i) => i.state),
    // (a record being rewritten to note when the image was served shows up as a .tmp- file for a moment)
    cacheFiles: async (dataDir: string) =>
      (await readdir(path.join(dataDir, 'images'))).filter((f) => !f.includes('.tmp-')).sort(),
  };
}
