// The files an import row names (password_file, ca_file), read so that the import file cannot
// choose what is read: a row's path is relative to one directory — the import file's, or
// `--password-dir DIR` for password_file — and must stay inside it. Refused: an absolute path, a
// `..` segment, and a path that leaves the directory through a symbolic link (the directory and the
// file are resolved with realpath and compared); the file is opened at its resolved path without
// following a last symbolic link (O_NOFOLLOW), so a link swapped in after the check is refused too.
// A CSV someone else wrote could otherwise have the service send the admin token or a key file as
// a BMC password to an address of its choosing (issue 37).
//
// Does: the pure path rule (pathProblem, tested as a table) and the bounded read of a file inside
// the directory. Errors name the column and the directory, never the cell: a password typed into
// the password_file column by mistake is not echoed.
// Does NOT: parse the import (./bmc-import.ts) or check what the file holds beyond its size
// (the password's one line: ./bmc-client.ts; the CA: the service).
import { constants, type Stats } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Why a row's path is refused before any file is looked at; undefined when it is a plain relative path. */
export function pathProblem(cell: string): string | undefined {
  if (cell.trim() === '') return 'is empty';
  if (cell.includes('\0')) return 'holds a NUL character';
  if (path.isAbsolute(cell)) return 'must be a relative path, not an absolute one';
  if (cell.split(/[/\\]/).includes('..')) return 'must not leave the directory (a ".." in the path)';
  return undefined;
}

/** A directory a row's files are read in, and the words that name it in an error. */
export interface FilesDir {
  dir: string;
  label: string;
}

/** The column, the directory and the reason: never the cell. */
export class ImportFileError extends Error {
  constructor(column: string, why: string) {
    super(`${column}: ${why}`);
    this.name = 'ImportFileError';
  }
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * The text of the file `cell` names inside `base` (at most `maxBytes`), or an ImportFileError
 * naming `column` and why it is refused or unreadable.
 */
export async function readInside(base: FilesDir, column: string, cell: string, maxBytes: number): Promise<string> {
  const refuse = (why: string): never => {
    throw new ImportFileError(column, why);
  };
  const problem = pathProblem(cell);
  if (problem) refuse(`${problem} (paths are relative to ${base.label})`);
  let root: string;
  try {
    root = await realpath(base.dir);
  } catch (err) {
    return refuse(`${base.label} cannot be read (${code(err) ?? 'error'})`);
  }
  let real: string;
  try {
    real = await realpath(path.join(root, cell));
  } catch (err) {
    const why = code(err) === 'ENOENT' ? 'no such file' : `cannot be resolved (${code(err) ?? 'error'})`;
    return refuse(`${why} in ${base.label}`);
  }
  const inside = path.relative(root, real);
  if (inside === '' || inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside))
    refuse(`leads outside ${base.label} (through a symbolic link)`);
  let handle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    return refuse(
      code(err) === 'ELOOP'
        ? `leads outside ${base.label} (a symbolic link appeared)`
        : `cannot be opened (${code(err) ?? 'error'})`,
    );
  }
  try {
    const info: Stats = await handle.stat();
    if (!info.isFile()) refuse('is not a regular file');
    if (info.size > maxBytes) refuse(`the file holds more than ${maxBytes} bytes`);
    const buffer = Buffer.alloc(info.size);
    let done = 0;
    while (done < info.size) {
      const { bytesRead } = await handle.read(buffer, done, info.size - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return buffer.subarray(0, done).toString('utf8');
  } finally {
    await handle.close();
  }
}
