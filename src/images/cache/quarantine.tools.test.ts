// The quarantine folder on a real directory: a file is moved (not copied) with a note naming the
// image, the reason and both digests; at most `keep` files stay, oldest removed first; keep 0 deletes.
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../../iso/test-support/fixtures.js';
import { Quarantine } from './quarantine.js';

const root = makeTempDir('quarantine');
afterAll(() => removeDir(root));

const note = {
  image: '4.17/x86_64',
  reason: 'its sha256 differs',
  expectedSha256: 'aa'.repeat(32),
  actualSha256: 'bb'.repeat(32),
};

describe('Quarantine', () => {
  it('moves a file aside with its note, keeps the newest `keep`, and lists them for the disk budget', async () => {
    const dir = path.join(root, 'keep2');
    await mkdir(dir);
    const q = new Quarantine(dir, 2);
    const placed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const file = path.join(dir, 'x.iso');
      await writeFile(file, `version ${i}`);
      const ino = (await stat(file)).ino;
      const where = await q.put(file, note, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
      expect(where).toMatch(/^quarantine\/x\.iso\.2026-01-01T00-00-0\d-000Z$/);
      expect((await stat(path.join(dir, where!))).ino).toBe(ino); // renamed, not copied
      await expect(stat(file)).rejects.toThrow(/ENOENT/);
      placed.push(where!);
    }
    const names = (await readdir(q.dir)).sort();
    expect(names).toEqual([
      'x.iso.2026-01-01T00-00-01-000Z',
      'x.iso.2026-01-01T00-00-01-000Z.json',
      'x.iso.2026-01-01T00-00-02-000Z',
      'x.iso.2026-01-01T00-00-02-000Z.json',
    ]);
    expect(await readFile(path.join(dir, placed[2]!), 'utf8')).toBe('version 2');
    expect(JSON.parse(await readFile(path.join(dir, `${placed[2]!}.json`), 'utf8'))).toEqual({
      quarantinedAt: '2026-01-01T00:00:02.000Z',
      file: 'x.iso',
      ...note,
    });
    expect((await q.list()).map((f) => f.file).sort()).toEqual(names.map((n) => `quarantine/${n}`));
  });

  it('deletes the file instead when keep is 0', async () => {
    const dir = makeTempDir('quarantine-0');
    const file = path.join(dir, 'y.iso');
    await writeFile(file, 'bytes');
    expect(await new Quarantine(dir, 0).put(file, note, new Date())).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
    removeDir(dir);
  });
});
