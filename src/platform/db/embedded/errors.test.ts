// explainFsError as a table: a file-system failure in DATA_DIR told in words an operator can act
// on, with the code kept as context and the original error as the cause.
import { describe, expect, it } from 'vitest';

import { EmbeddedPostgresError, explainFsError } from './errors.js';

const fsError = (code: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: something, mkdir '/data/postgres'`), { code });

describe('explainFsError: table', () => {
  it.each<[string, unknown, string]>([
    ['EROFS', fsError('EROFS'), 'cannot create /data/postgres: the file system is read-only'],
    ['EACCES', fsError('EACCES'), 'cannot create /data/postgres: permission denied'],
    ['EPERM', fsError('EPERM'), 'cannot create /data/postgres: permission denied'],
    ['ENOSPC', fsError('ENOSPC'), 'cannot create /data/postgres: no space left on the device'],
    ['EDQUOT', fsError('EDQUOT'), 'cannot create /data/postgres: disk quota exceeded'],
    [
      'another code: its message',
      fsError('EIO'),
      "cannot create /data/postgres: EIO: something, mkdir '/data/postgres'",
    ],
    ['not an Error', 'weird', 'cannot create /data/postgres: weird'],
  ])('%s', (_name, err, message) => {
    const explained = explainFsError(err, 'create /data/postgres');
    expect(explained).toBeInstanceOf(EmbeddedPostgresError);
    expect(explained.message).toBe(message);
    expect(explained.cause).toBe(err);
  });
});
