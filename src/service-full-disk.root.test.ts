// The start on a nearly full disk (issue 23, item 7): the embedded PostgreSQL and a base image
// download share DATA_DIR on a small real tmpfs. The first start used to exit: the download
// filled the disk while initdb ran. Now writes into the image cache wait for the database's
// start, and a download that does not fit fails that image alone with its reason while the
// database and the API run. Skipped (with the reason) where mounting a tmpfs is not allowed,
// failed under CI=true.
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { IsoServer } from './images/test-support/iso-server.js';
import { type Tmpfs, requireTmpfs } from './images/test-support/tmpfs.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

/** Room for the cluster (about 40 MiB; as root maybe 60 MiB more for a copy of the binaries) and no image. */
const TMPFS_BYTES = 200 * 1024 * 1024;
const IMAGE_BYTES = 190 * 1024 * 1024;

const mounted = requireTmpfs(TMPFS_BYTES);
if ('reason' in mounted) console.warn(`skipping the full-disk start tests: ${mounted.reason}`);

describe.skipIf('reason' in mounted)('the first start on a nearly full DATA_DIR (200 MiB tmpfs)', () => {
  const fs = mounted as Tmpfs;
  const server = new IsoServer();
  beforeAll(async () => {
    chmodSync(fs.dir, 0o711); // as root the embedded PostgreSQL runs unprivileged: DATA_DIR's parents must be searchable
    await server.start();
    const image = Buffer.alloc(IMAGE_BYTES, 0x42);
    server.serve('/announced.iso', image);
    server.serve('/unsized.iso', image, { chunked: true });
  });
  afterAll(async () => {
    await server.stop();
    fs.unmount();
  });

  async function firstStart(name: string, route: string, env: Record<string, string> = {}) {
    const config = loadConfig({
      LISTEN_PORT: '0',
      LISTEN_ADDRESS: '127.0.0.1',
      AUTH_TYPE: 'none',
      DATA_DIR: path.join(fs.dir, name),
      OS_IMAGES: JSON.stringify([
        { openshift_version: '4.17', cpu_architecture: 'x86_64', url: server.url(route), version: '417.94.1' },
      ]),
      ...env,
    });
    const service = await startService(config, createLogger('silent'), { defaultMetrics: false });
    try {
      await service.imagesLoaded;
      const health = (await (await fetch(`${service.url}/health`)).json()) as {
        database: { state: string };
        images: Array<{ state: string; reason?: string }>;
      };
      const api = await fetch(`${service.url}/api/assisted-install/v2/infra-envs`);
      return { image: health.images[0]!, database: health.database.state, api: api.status };
    } finally {
      await service.close();
    }
  }

  it('starts the database first; a download of unknown size that then fills the disk fails the image alone', async () => {
    const started = await firstStart('unsized', '/unsized.iso', { IMAGE_DISK_RESERVE_BYTES: '0' });
    expect(started.database).toBe('running');
    expect(started.api).toBe(200);
    expect(started.image.state).toBe('failed');
    expect(started.image.reason).toMatch(/the disk holding .*images is full \(ENOSPC\)/);
    expect(fs.free()).toBeGreaterThan(TMPFS_BYTES - 128 * 1024 * 1024); // the partial file is gone
  });

  it('refuses, before writing, a download that would not leave the database its reserve', async () => {
    const started = await firstStart('announced', '/announced.iso');
    expect(started.database).toBe('running');
    expect(started.api).toBe(200);
    expect(started.image).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(
        /is too full: the image needs 190 MiB more, .* 256 MiB stay free .*nothing was written/,
      ),
    });
  });
});
