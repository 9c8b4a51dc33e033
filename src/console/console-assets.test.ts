// loadConsoleAssets on real folders: which names it takes, what it skips (other extensions, upper
// case, dot files, subfolders, symlinks), its bounds, and an absent folder.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleAssetsError, MAX_CONSOLE_FILES, MAX_CONSOLE_FILE_BYTES, loadConsoleAssets } from './console-assets.js';

describe('loadConsoleAssets', () => {
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'console-assets-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('takes plain lower-case html/js/css/svg files and nothing else', async () => {
    const dir = await fresh();
    for (const name of ['index.html', 'main.js', 'a-b.css', 'i.svg', 'Main.js', '.x.js', 'a.b.js', 'notes.txt'])
      await writeFile(path.join(dir, name), name);
    await mkdir(path.join(dir, 'sub.js'));
    await writeFile(path.join(dir, 'secret'), 'no');
    await symlink(path.join(dir, 'secret'), path.join(dir, 'link.js'));
    const assets = loadConsoleAssets(dir);
    expect([...assets.keys()].sort()).toEqual(['a-b.css', 'i.svg', 'index.html', 'main.js']);
    expect(assets.get('main.js')).toEqual({
      body: Buffer.from('main.js'),
      contentType: 'text/javascript; charset=utf-8',
    });
    expect(assets.get('i.svg')!.contentType).toBe('image/svg+xml');
  });

  it('refuses a file over the size bound and a folder over the count bound', async () => {
    const big = await fresh();
    await writeFile(path.join(big, 'big.js'), Buffer.alloc(MAX_CONSOLE_FILE_BYTES + 1));
    expect(() => loadConsoleAssets(big)).toThrow(ConsoleAssetsError);
    const many = await fresh();
    for (let i = 0; i <= MAX_CONSOLE_FILES; i++) await writeFile(path.join(many, `f${i}.js`), '');
    expect(() => loadConsoleAssets(many)).toThrow(/more than 64 console files/);
  });

  it('is empty for an absent folder, and the real console has its page', () => {
    expect(loadConsoleAssets('/nonexistent/console').size).toBe(0);
    expect(loadConsoleAssets().has('index.html')).toBe(true);
  });
});
