// DATA_DIR at start, before anything writes into it: created with its missing parents, then shown
// writable by creating and removing a probe file. When that fails the start is refused with a
// ConfigError naming DATA_DIR, the path, the real cause and the fix (issue 37: a read-only or not
// yet creatable DATA_DIR said only `ENOENT: mkdir`, which is what a recursive mkdir reports on a
// read-only file system).
//
// Does: walk up to the deepest existing ancestor and create each missing level on its own, so the
// error is the one of the level that failed (EROFS, EACCES, ENOTDIR, ENOSPC). Does NOT: create
// anything inside DATA_DIR (the image cache, the embedded PostgreSQL and the auth keys do), or
// check free space. Next: src/startup/setting-refusals.ts.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config.js';

/** Creates DATA_DIR when missing and checks this process may write in it; ConfigError otherwise. */
export async function prepareDataDir(dir: string): Promise<void> {
  const missing: string[] = [];
  let existing = dir;
  while (!(await exists(existing, dir))) {
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw refusal(dir, `cannot be created: making ${level}`, err);
    }
  }
  const probe = path.join(dir, `.bootsmith-write-check-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(probe, '');
  } catch (err) {
    throw refusal(dir, 'is not writable', err);
  } finally {
    await rm(probe, { force: true }).catch(() => undefined);
  }
}

async function exists(p: string, dir: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw refusal(dir, `cannot be used: looking at ${p}`, err);
    },
  );
}

function refusal(dir: string, what: string, err: unknown): ConfigError {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const user = uid === undefined ? 'the user bootsmith runs as' : `the user bootsmith runs as (uid ${uid})`;
  const cause: Record<string, string> = {
    EROFS: 'the file system is read-only',
    EACCES: `${user} may not write there`,
    EPERM: `${user} may not write there`,
    ENOTDIR: 'a part of the path is a file, not a directory',
    ENOSPC: 'the file system is full',
    EDQUOT: 'the disk quota is exhausted',
  };
  const why = cause[code] ?? (err as Error).message;
  return new ConfigError(
    `DATA_DIR ${dir} ${what}: ${why} (${code || 'error'}): set DATA_DIR to a directory ${user} may write on a writable file system, or create this one and give that user write access`,
  );
}
