// The background re-hash's reader: the digest of the whole file, paced to the configured rate
// (checked on a counted clock, not the wall clock), and stopped by its signal.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../../iso/test-support/fixtures.js';
import { hashFilePaced } from './paced-hash.js';

const dir = makeTempDir('paced-hash');
afterAll(() => removeDir(dir));

describe('hashFilePaced', () => {
  const bytes = Buffer.alloc(5 * 1024 * 1024 + 123);
  for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i & 0xff;
  const file = path.join(dir, 'f.iso');

  it('returns the sha256 of the whole file and waits as long as the rate requires', async () => {
    await writeFile(file, bytes);
    let clock = 0;
    const pauses: number[] = [];
    const sha = await hashFilePaced(file, {
      bytesPerSecond: 2 * 1024 * 1024,
      signal: new AbortController().signal,
      now: () => clock,
      pause: async (ms) => {
        pauses.push(ms);
        clock += ms;
      },
    });
    expect(sha).toBe(createHash('sha256').update(bytes).digest('hex'));
    // 5 MiB + 123 bytes at 2 MiB/s: the reader is ahead after every chunk and waits it out
    expect(pauses.length).toBe(6);
    expect(clock).toBeCloseTo((bytes.length / (2 * 1024 * 1024)) * 1000, 6);
  });

  it('stops when its signal aborts', async () => {
    const abort = new AbortController();
    const hashing = hashFilePaced(file, {
      bytesPerSecond: 1024 * 1024,
      signal: abort.signal,
      pause: async () => abort.abort(new Error('closing')),
    });
    await expect(hashing).rejects.toThrow('closing');
  });
});
