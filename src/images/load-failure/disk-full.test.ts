// Recognising a full disk in an error and the error the image store reports for it, as tables.
// Pure; a download that really fills a disk is src/images/cache/disk-full-tmpfs.root.test.ts.
import { describe, expect, it } from 'vitest';

import { ImageLoadError } from './load-error.js';
import { diskFullCode, diskFullError } from './disk-full.js';

const coded = (code: string, message = 'write failed'): Error => Object.assign(new Error(message), { code });

/** An error wrapped `depth` times (`cause` chains), innermost `inner`. */
function wrapped(inner: unknown, depth: number): unknown {
  let err = inner;
  for (let i = 0; i < depth; i++) err = new Error(`wrapper ${i}`, { cause: err });
  return err;
}

describe('diskFullCode: table', () => {
  it.each<[string, unknown, string | undefined]>([
    ['ENOSPC itself', coded('ENOSPC'), 'ENOSPC'],
    ['EDQUOT (a quota is a full disk too)', coded('EDQUOT'), 'EDQUOT'],
    ['ENOSPC two causes down', wrapped(coded('ENOSPC'), 2), 'ENOSPC'],
    ['ENOSPC seven causes down (the last looked at)', wrapped(coded('ENOSPC'), 7), 'ENOSPC'],
    ['ENOSPC eight causes down: too deep', wrapped(coded('ENOSPC'), 8), undefined],
    [
      'the outermost disk-full code wins',
      Object.assign(new Error('x', { cause: coded('ENOSPC') }), { code: 'EDQUOT' }),
      'EDQUOT',
    ],
    ['another code', coded('EACCES'), undefined],
    ['no code', new Error('no code'), undefined],
    ['a numeric code', Object.assign(new Error('x'), { code: 28 }), undefined],
    ['a plain object with the code', { code: 'ENOSPC' }, 'ENOSPC'],
    ['a string', 'ENOSPC', undefined],
    ['undefined', undefined, undefined],
    ['null', null, undefined],
  ])('%s', (_name, err, expected) => {
    expect(diskFullCode(err)).toBe(expected);
  });
});

describe('diskFullError', () => {
  it('names the directory and the partial file, retries on the slow schedule, keeps the cause', () => {
    const cause = coded('ENOSPC', 'ENOSPC: no space left on device, write');
    const err = diskFullError(cause, 'ENOSPC', '/var/lib/bootsmith/images/4.16-x86_64.iso.part', '4.16 x86_64');
    expect(err).toBeInstanceOf(ImageLoadError);
    expect(err.retry).toBe('slow');
    expect(err.message).toBe(
      '4.16 x86_64: the disk holding /var/lib/bootsmith/images is full (ENOSPC); the partial file 4.16-x86_64.iso.part was removed and the download is retried later',
    );
    expect((err.cause as Error).message).toContain('no space left on device');
  });
});
