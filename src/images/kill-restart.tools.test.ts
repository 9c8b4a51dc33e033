// A store process killed (SIGKILL) in the middle of a download leaves only a .part that is
// never served, and the next start resumes it with Range and completes it with exactly the
// served bytes.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../package-root.js';
import { UnavailableError } from '../errors.js';
import { createLogger } from '../logger.js';
import { ManagedImageStore } from './managed-image-store.js';
import { entry, fixtureBytes, sha256 } from './test-support/images.js';
import { IsoServer } from './test-support/iso-server.js';
import { waitFor } from './test-support/wait.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-support', 'store-child.mjs');

describe('kill and restart during a download', () => {
  const iso = fixtureBytes();
  const server = new IsoServer();
  let dataDir: string;

  beforeAll(async () => {
    await server.start();
    dataDir = await mkdtemp(path.join(tmpdir(), 'bootsmith-kill-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('never serves the half file and completes the download after a restart', async () => {
    server.serve('/slow.iso', iso, { chunkBytes: 32 * 1024, delayMs: 25 });
    const entries = [entry('4.17', server.url('/slow.iso'), { sha256: sha256(iso) })];
    const child = spawn(process.execPath, [CHILD, PACKAGE_ROOT, dataDir, JSON.stringify(entries)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );

    await waitFor(() => server.bytesSent >= 300_000, 'the child to be half way through the download', 20_000);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(output).toContain('"state":"downloading"');
    expect(output).not.toContain('loaded');

    const images = path.join(dataDir, 'images');
    const left = await readdir(images);
    expect(left.filter((f) => f.endsWith('.iso'))).toEqual([]);
    const part = left.find((f) => f.endsWith('.iso.part'))!;
    const partBytes = (await stat(path.join(images, part))).size;
    expect(partBytes).toBeGreaterThan(0);
    expect(partBytes).toBeLessThan(iso.length);

    const imageStore = new ManagedImageStore(entries, [], createLogger('silent'), { dataDir });
    try {
      const loaded = imageStore.loadAll();
      expect(() => imageStore.resolve('4.17', 'x86_64')).toThrow(UnavailableError);
      await loaded;
      const image = imageStore.resolve('4.17', 'x86_64');
      expect(image.base.path.endsWith('.iso')).toBe(true);
      expect((await readFile(image.base.path)).equals(iso)).toBe(true);
      const resumed = server.hitsFor('/slow.iso').at(-1)!;
      expect(resumed.range).toBe(`bytes=${partBytes}-`);
      expect((await readdir(images)).filter((f) => f.includes('.part'))).toEqual([]);
    } finally {
      await imageStore.close();
    }
  });

  it('a source with neither ETag nor Last-Modified that changes across a kill -9 yields the new version, never a mix', async () => {
    const v1 = Buffer.from(iso);
    const v2 = Buffer.from(iso);
    // two changed stretches of file data: one well before the kill point, one well after it
    for (const at of [200_000, 495_000]) v2.fill(0x5a, at, at + 1000);
    const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-kill-nv-'));
    try {
      server.serve('/changing.iso', v1, { chunkBytes: 32 * 1024, delayMs: 25, etag: null });
      const before = server.bytesSent;
      const entries = [entry('4.18', server.url('/changing.iso'))];
      const child = spawn(process.execPath, [CHILD, PACKAGE_ROOT, dir, JSON.stringify(entries)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      );
      await waitFor(
        () => server.bytesSent - before >= 300_000,
        'the child to be part way through the download',
        20_000,
      );
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const images = path.join(dir, 'images');
      const part = (await readdir(images)).find((f) => f.endsWith('.iso.part'))!;
      const partBytes = (await stat(path.join(images, part))).size;
      expect(partBytes).toBeGreaterThan(200_000);
      expect(partBytes).toBeLessThan(495_000);
      expect(JSON.parse(await readFile(path.join(images, `${part}.json`), 'utf8'))).not.toHaveProperty('validator');

      server.serve('/changing.iso', v2, { etag: null });
      const imageStore = new ManagedImageStore(entries, [], createLogger('silent'), { dataDir: dir });
      try {
        await imageStore.loadAll();
        const served = await readFile(imageStore.resolve('4.18', 'x86_64').base.path);
        expect(served.equals(v1) ? 'v1' : served.equals(v2) ? 'v2' : 'mix').toBe('v2');
        expect(server.hitsFor('/changing.iso').at(-1)!.range).toBeUndefined();
      } finally {
        await imageStore.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
