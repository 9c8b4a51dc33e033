// An import row's files (./import-files.ts): the path rule as a table, then reads in a temporary
// directory with real symbolic links: a file inside (directly or through a link that stays inside)
// is read; an absolute path, a `..`, a link to a file outside, a link to a directory outside, a
// missing file, a directory and an oversized file are refused naming the column and the directory,
// never the cell.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathProblem, readInside } from './import-files.js';

describe('pathProblem', () => {
  it.each([
    ['pw', undefined],
    ['secrets/n1.pw', undefined],
    ['./pw', undefined],
    ['..pw', undefined],
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['/etc/shadow', 'must be a relative path, not an absolute one'],
    ['/work/data/auth/admin-token', 'must be a relative path, not an absolute one'],
    ['../data/auth/admin-token', 'must not leave the directory (a ".." in the path)'],
    ['secrets/../../x', 'must not leave the directory (a ".." in the path)'],
    ['..', 'must not leave the directory (a ".." in the path)'],
    ['a\\..\\b', 'must not leave the directory (a ".." in the path)'],
    ['pw\0', 'holds a NUL character'],
  ])('%j → %s', (cell, problem) => {
    expect(pathProblem(cell)).toBe(problem);
  });
});

describe('readInside (temporary directory, real symbolic links)', () => {
  let root: string;
  let imports: { dir: string; label: string };
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'bmc-import-files-'));
    const dir = path.join(root, 'imports');
    await mkdir(path.join(dir, 'sub'), { recursive: true });
    await mkdir(path.join(root, 'data', 'auth'), { recursive: true });
    await writeFile(path.join(root, 'data', 'auth', 'admin-token'), 'the-admin-token\n');
    await writeFile(path.join(dir, 'pw'), 'inside-password\n');
    await writeFile(path.join(dir, 'sub', 'big'), 'x'.repeat(100));
    await symlink(path.join(dir, 'pw'), path.join(dir, 'sub', 'link-inside'));
    await symlink(path.join(root, 'data', 'auth', 'admin-token'), path.join(dir, 'token-link'));
    await symlink(path.join(root, 'data', 'auth'), path.join(dir, 'auth-dir'));
    imports = { dir, label: `the import file's directory (${dir})` };
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('reads a file inside, directly or through a link that stays inside', async () => {
    expect(await readInside(imports, 'password_file', 'pw', 4096)).toBe('inside-password\n');
    expect(await readInside(imports, 'password_file', 'sub/link-inside', 4096)).toBe('inside-password\n');
  });

  it.each([
    ['an absolute path', () => path.join(root, 'data', 'auth', 'admin-token'), 'must be a relative path'],
    ['a ..', () => '../data/auth/admin-token', 'must not leave the directory'],
    ['a link to a file outside', () => 'token-link', 'leads outside'],
    ['a link to a directory outside', () => 'auth-dir/admin-token', 'leads outside'],
    ['a missing file', () => 'nope', 'no such file in'],
    ['a directory', () => 'sub', 'is not a regular file'],
    ['a file too large', () => 'sub/big', 'more than 10 bytes'],
  ])('refuses %s, naming the column and the directory, never the cell', async (_what, cell, why) => {
    const value = cell();
    const err = await readInside(imports, 'password_file', value, 10).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/^password_file: /);
    expect(err?.message).toContain(why);
    if (why !== 'is not a regular file' && !why.startsWith('more than')) expect(err?.message).toContain(imports.dir);
    expect(err?.message).not.toContain(value);
    expect(err?.message).not.toContain('admin-token');
  });
});
