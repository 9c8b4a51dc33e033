// `.part` files are never followed (issue 37): a symbolic link, a hard link or a FIFO planted under
// a `.part` name is removed (its name only: what it points to keeps its bytes) or refused, on a real
// directory. The downloader's use of it is in src/images/fetch/download.tools.test.ts.
import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  lstatSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPartFile, regularPartSize } from './part-file.js';

let dir: string;
let victim: string;
let part: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-part-file-'));
  victim = path.join(dir, 'victim');
  part = path.join(dir, 'x.iso.part');
  writeFileSync(victim, 'keep me');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('regularPartSize', () => {
  it('gives the size of a regular file, 0 when there is none', async () => {
    expect(await regularPartSize(part)).toEqual({ size: 0 });
    writeFileSync(part, 'abc');
    expect(await regularPartSize(part)).toEqual({ size: 3 });
  });

  it('removes a symbolic link (not its target) and says so', async () => {
    symlinkSync(victim, part);
    const found = await regularPartSize(part);
    expect(found.size).toBe(0);
    expect(found.removed).toBe(`${part} was a symbolic link, not a file bootsmith wrote: removed it (never followed)`);
    expect(existsSync(part)).toBe(false);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  });

  it('removes a hard link to another file and a dangling link', async () => {
    linkSync(victim, part);
    expect((await regularPartSize(part)).removed).toMatch(/a file with other names \(hard links\)/);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    symlinkSync(path.join(dir, 'nowhere'), part);
    expect((await regularPartSize(part)).removed).toMatch(/a symbolic link/);
    expect(() => lstatSync(part)).toThrow(/ENOENT/);
  });
});

describe('openPartFile', () => {
  it('refuses to resume through a symbolic link, removing the link and leaving the target as it was', async () => {
    symlinkSync(victim, part);
    const err = await openPartFile(part, { resume: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'ELOOP',
      message: `${part} is a symbolic link, not a file bootsmith wrote: removed it, never followed`,
    });
    expect(existsSync(part)).toBe(false);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  });

  it('starts a new file in place of a link or hard link, never writing into what they name', async () => {
    for (const plant of [() => symlinkSync(victim, part), () => linkSync(victim, part)]) {
      plant();
      const handle = await openPartFile(part, { resume: false });
      await handle.write(Buffer.from('new'));
      await handle.close();
      expect(readFileSync(part, 'utf8')).toBe('new');
      expect(lstatSync(part).isSymbolicLink()).toBe(false);
      expect(readFileSync(victim, 'utf8')).toBe('keep me');
      rmSync(part);
    }
  });

  it('refuses to resume a hard link, and a FIFO never blocks the open', async () => {
    linkSync(victim, part);
    await expect(openPartFile(part, { resume: true })).rejects.toThrow(/a file with other names/);
    rmSync(part);
    execFileSync('mkfifo', [part]);
    await expect(openPartFile(part, { resume: true })).rejects.toThrow(/not a regular file|ENXIO/);
    expect((await regularPartSize(part)).removed).toMatch(/not a regular file/);
    writeFileSync(part, 'abc');
    const handle = await openPartFile(part, { resume: true });
    expect((await handle.stat()).size).toBe(3);
    await handle.close();
  });
});
