// Crash-safe file operations for every writer of DATA_DIR (the image cache, the auth keys and
// admin token): fsync of a file and of its directory, an atomic rename that survives a crash,
// atomic small-file writes (temp file + fsync + rename), and the small helpers around them
// (removing and stat-ing files that may be missing).
// A reader either sees the old file or the complete new one, never a half-written one.
// It knows nothing about images or keys, and imports nothing of bootsmith's (a leaf).
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function fsyncPath(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Renames `from` to `to` and fsyncs the directory so the rename itself is durable. */
export async function renameDurably(from: string, to: string): Promise<void> {
  await rename(from, to);
  await fsyncPath(path.dirname(to));
}

/** Whether `name` is one of the temporary files writeFileAtomic uses (left behind only by a crash). */
export function isTempFile(name: string): boolean {
  return /\.tmp-\d+-[0-9a-f]{8}$/.test(name);
}

/** Writes `data` to `file` atomically (never leaves a partial file under that name), created with `mode`. */
export async function writeFileAtomic(file: string, data: string | Buffer, mode = 0o666): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(tmp, data, { flush: true, mode });
    await renameDurably(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Removes files, ignoring those already gone. */
export async function removeFiles(...files: string[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f, { force: true })));
}

/** The file's stat, or undefined when it does not exist (or cannot be read). */
export async function statIfExists(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch {
    return undefined;
  }
}
