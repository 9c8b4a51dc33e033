// The image cache's work-in-progress files (`.part`: downloads, registry pulls, zip extraction,
// block-device copies) are written and resumed only as the regular files bootsmith created there,
// never through a symbolic link (issue 37): someone able to write the cache directory could
// otherwise plant `x.iso.part -> /some/file` and have the service append to or overwrite any file
// it may write. A link (or any other non-regular entry) under a `.part` name is removed — the link
// itself, never what it points to — and the work starts again from the first byte.
//
// Does: lstat a `.part` and remove what is not a regular file; open one with O_NOFOLLOW (so a link
// planted between the check and the open is refused too), a new one with O_EXCL after unlinking
// whatever was there, and check the opened file is regular with no other name.
// Does NOT: protect the cache directory itself (DATA_DIR is the operator's), decide whether to
// resume (src/images/fetch/download.ts), or read the bytes. Next: src/fs/atomic-file.ts.
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, unlink } from 'node:fs/promises';

export interface PartSize {
  /** Bytes of the regular file there (0 when there is none). */
  size: number;
  /** What was removed instead of being followed, for the caller's notice. */
  removed?: string;
}

/**
 * The size of the `.part` at `part`; a symbolic link, a hard link or another non-regular entry
 * there is removed first (its name only), a directory refused.
 */
export async function regularPartSize(part: string): Promise<PartSize> {
  const st = await lstat(part).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!st) return { size: 0 };
  if (st.isFile() && st.nlink === 1) return { size: st.size };
  if (st.isDirectory()) throw plantedError(part, 'a directory', 'EISDIR');
  const kind = st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isFile()
      ? 'a file with other names (hard links)'
      : 'not a regular file';
  await unlink(part);
  return { size: 0, removed: `${part} was ${kind}, not a file bootsmith wrote: removed it (never followed)` };
}

/**
 * Opens `part` for writing. Not `resume`: whatever is there is unlinked and a new file created
 * exclusively (a hard link planted there is never truncated). `resume`: the existing regular file,
 * refused when it is a symbolic link (removed, error code ELOOP) or has other names (hard links).
 */
export async function openPartFile(part: string, { resume }: { resume: boolean }): Promise<FileHandle> {
  if (!resume)
    await unlink(part).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  // O_NONBLOCK: a FIFO planted there fails the open instead of blocking it; no effect on files
  const flags =
    (resume ? constants.O_RDWR : constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL) |
    constants.O_NOFOLLOW |
    constants.O_NONBLOCK;
  let handle: FileHandle;
  try {
    handle = await open(part, flags, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
    await unlink(part).catch(() => undefined);
    throw plantedError(part, 'a symbolic link', 'ELOOP');
  }
  const st = await handle.stat();
  if (!st.isFile() || st.nlink !== 1) {
    await handle.close();
    throw plantedError(part, st.isFile() ? 'a file with other names (hard links)' : 'not a regular file', 'EINVAL');
  }
  return handle;
}

function plantedError(part: string, kind: string, code: string): Error {
  const removed = code === 'ELOOP' ? ': removed it, never followed' : '';
  return Object.assign(new Error(`${part} is ${kind}, not a file bootsmith wrote${removed}`), { code, path: part });
}
