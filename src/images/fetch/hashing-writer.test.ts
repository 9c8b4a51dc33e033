// HashingFileWriter: chunks piped into it land in the file at increasing positions from where it
// starts, and the sha256 and byte count it reports are of exactly the bytes written; a write
// that fails leaves its position at the end of what was written.
import { createHash } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HashingFileWriter } from './hashing-writer.js';

describe('HashingFileWriter', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-hashing-writer-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each<[string, number, string[]]>([
    ['a fresh file, one chunk', 0, ['hello']],
    ['a fresh file, many chunks', 0, ['a', 'bc', 'def', 'ghij']],
    ['resuming after 6 bytes already there', 6, ['resumed', ' tail']],
    ['no chunk at all', 0, []],
  ])('%s', async (name, start, parts) => {
    const file = path.join(dir, `${name.replace(/\W+/g, '-')}.part`);
    const before = Buffer.from('EXIST!');
    await writeFile(file, before.subarray(0, start));
    const handle = await open(file, 'r+');
    const hash = createHash('sha256');
    let reported = 0;
    const writer = new HashingFileWriter(handle, start, hash, (n) => (reported += n));
    try {
      await pipeline(Readable.from(parts.map((p) => Buffer.from(p))), writer);
    } finally {
      await handle.close();
    }
    const body = Buffer.from(parts.join(''));
    expect(await readFile(file)).toEqual(Buffer.concat([before.subarray(0, start), body]));
    expect(hash.digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
    expect(reported).toBe(body.length);
    expect(writer.position).toBe(start + body.length);
  });

  it('fails with the write’s error and keeps the position at the bytes written', async () => {
    const file = path.join(dir, 'read-only.part');
    await writeFile(file, '');
    const handle = await open(file, 'r'); // writes fail: EBADF
    const writer = new HashingFileWriter(handle, 0, createHash('sha256'), () => undefined);
    try {
      await expect(pipeline(Readable.from([Buffer.from('x')]), writer)).rejects.toThrow(/EBADF/);
    } finally {
      await handle.close();
    }
    expect(writer.position).toBe(0);
  });
});
