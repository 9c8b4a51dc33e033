// BaseFile's fence on a real file: while the file keeps the stat it was verified with, fenced
// reads return its bytes; the first read after a write fails (never handing on what it read) and
// tells the fence's owner once; so does a file replaced under its name (the unlinked inode's ctime
// moves), which the owner then checks.
import { open, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../iso/test-support/fixtures.js';
import { BaseFile, type BaseFileFence } from './base-file.js';

const dir = makeTempDir('base-file');
afterAll(() => removeDir(dir));
const bytes = Buffer.alloc(64 * 1024, 0x61);

async function fenced(name: string) {
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  const st = await stat(file);
  const told: string[] = [];
  const fence: BaseFileFence = {
    expected: { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino },
    onChanged: (reason) => told.push(reason),
  };
  return { file, told, base: await BaseFile.open(file, 'sha256:x', undefined, fence) };
}

describe('BaseFile fence', () => {
  it('reads while the file keeps its stat, and refuses the first read after a write', async () => {
    const { file, told, base } = await fenced('a.iso');
    expect((await base.readExactly(0, 16)).equals(bytes.subarray(0, 16))).toBe(true);
    const handle = await open(file, 'r+');
    await handle.write(Buffer.from('b'), 0, 1, 10);
    await handle.close();
    await expect(base.readExactly(0, 16)).rejects.toThrow(/changed since it was verified; not served/);
    await expect(base.readExactly(100, 16)).rejects.toThrow(/not served/);
    expect(told).toEqual(['the file changed since it was verified']);
    base.close();
  });

  it('stops too when another file is renamed over its name', async () => {
    const { file, told, base } = await fenced('b.iso');
    await writeFile(`${file}.new`, Buffer.alloc(bytes.length, 0x7a));
    await rename(`${file}.new`, file);
    await expect(base.readExactly(0, 16)).rejects.toThrow(/not served/);
    expect(told).toHaveLength(1);
    base.close();
  });

  it('reads without any check when opened without a fence', async () => {
    const file = path.join(dir, 'c.iso');
    await writeFile(file, bytes);
    const base = await BaseFile.open(file);
    await writeFile(file, Buffer.alloc(bytes.length, 0x62));
    expect((await base.readExactly(0, 1))[0]).toBe(0x62);
    base.close();
  });
});
