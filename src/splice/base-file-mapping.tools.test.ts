// BaseFile.cachedView() with the real kernel I/O addon: views of the file's mapping hold the
// file's bytes (checked through a socket, as the serving path hands them on); a range the page
// cache does not hold, a file whose fence tripped and a closed file give no view; close() lets go
// of the mapping's file at once (it leaves /proc/self/maps, so an evicted ISO's blocks are freed
// without waiting for the GC). Skips outside CI when the addon was not built; fails under CI=true.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../test/support/requirements.js';
import { type KernelIo, kernelIo } from '../kernel-io/native-binding.js';
import { connectedPair, readExactly } from '../kernel-io/test-support/socket-pair.js';
import { BaseFile } from './base-file.js';

const io = kernelIo();
const missing = unavailable({ 'the kernel I/O addon (npm ci builds it with g++, make and python3)': io !== undefined });

describe.skipIf(missing)('BaseFile.cachedView', () => {
  const k = io as KernelIo;
  const bytes = randomBytes(3 * 1024 * 1024);
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'base-file-mapping-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function open(name: string, changes: string[] = []): Promise<{ file: string; base: BaseFile }> {
    const file = path.join(dir, name);
    writeFileSync(file, bytes); // through the page cache: every page cached
    const st = statSync(file);
    const base = await BaseFile.open(file, `sha256:${name}`, new Date(0), {
      expected: { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino },
      onChanged: (reason) => changes.push(reason),
    });
    return { file, base };
  }

  it('gives views whose bytes are the file’s, and lets go of the file when closed', async () => {
    const { file, base } = await open('a.iso');
    const { server, client, close } = await connectedPair();
    try {
      const view = base.cachedView(k, 1_234_567, 500_000);
      expect(view).toBeDefined();
      const got = readExactly(client, 500_000);
      server.write(view!);
      expect((await got).equals(bytes.subarray(1_234_567, 1_734_567))).toBe(true);
      expect(readFileSync('/proc/self/maps', 'utf8')).toContain(file);
    } finally {
      close();
      base.close();
    }
    expect(readFileSync('/proc/self/maps', 'utf8')).not.toContain(file);
    expect(base.cachedView(k, 0, 65_536)).toBeUndefined();
  });

  it('gives no view of a range the page cache does not hold, nor once the file changed', async () => {
    const changes: string[] = [];
    const { file, base } = await open('b.iso', changes);
    try {
      const notCached: KernelIo = { ...k, mappedResidency: () => 0 };
      expect(base.cachedView(notCached, 0, 65_536)).toBeUndefined();
      expect(base.cachedView(k, 0, 65_536)).toBeDefined();
      writeFileSync(file, Buffer.from([1]), { flag: 'r+' }); // a byte rewritten: new mtime and ctime
      expect(base.readCached(k, Buffer.alloc(4096), 0, 4096, 0)).toBe(-1); // the fence trips
      expect(changes).toEqual(['the file changed since it was verified']);
      expect(base.cachedView(k, 0, 65_536)).toBeUndefined();
    } finally {
      base.close();
    }
  });
});
