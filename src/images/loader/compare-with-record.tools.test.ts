// The integrity rule of the image cache on real files: the recorded sha256 is compared, never
// replaced; a matching stat is trusted without reading; a changed stat (or a distrusted file) is
// hashed — a match refreshes only the fingerprint, a mismatch reports both digests.
import { execFileSync } from 'node:child_process';
import { open, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../../iso/test-support/fixtures.js';
import { type VerifiedFile, withFingerprint } from '../cache/cache-record.js';
import { sha256 } from '../test-support/images.js';
import { compareWithRecord } from './compare-with-record.js';

const dir = makeTempDir('compare-with-record');
afterAll(() => removeDir(dir));

const bytes = Buffer.alloc(256 * 1024, 0x61);
let counter = 0;

/** A file and the record a verification would have written for it. */
async function recorded(): Promise<VerifiedFile> {
  const file = path.join(dir, `f${++counter}.iso`);
  await writeFile(file, bytes);
  const base = { path: file, size: 0, mtimeMs: 0, sha256: sha256(bytes), manifest: {} as VerifiedFile['manifest'] };
  return withFingerprint(base, await stat(file));
}

async function compare(verified: VerifiedFile, distrusted?: string) {
  let hashed = 0;
  const result = await compareWithRecord(verified, {
    distrusted,
    signal: new AbortController().signal,
    now: new Date('2026-01-02T03:04:05Z'),
    onHashBytes: (n) => (hashed += n),
  });
  return { result, hashed };
}

/** Writes one byte in place; `restoreTimes` puts atime and mtime back to the nanosecond (`touch -r`). */
async function flipByte(file: string, at: number, restoreTimes: boolean): Promise<void> {
  const reference = `${file}.times`;
  if (restoreTimes) execFileSync('touch', ['-r', file, reference]);
  const handle = await open(file, 'r+');
  await handle.write(Buffer.from([0x62]), 0, 1, at);
  await handle.close();
  if (restoreTimes) {
    execFileSync('touch', ['-r', reference, file]);
    expect((await stat(file)).mtimeMs).toBe((await stat(reference)).mtimeMs);
  }
}

describe('compareWithRecord', () => {
  it('trusts a file whose stat matches its record without reading it', async () => {
    const verified = await recorded();
    const { result, hashed } = await compare(verified);
    expect(result).toEqual({ verdict: 'same', verified, rewrite: false });
    expect(hashed).toBe(0);
  });

  it('hashes a touched file and keeps its recorded sha256, refreshing only the fingerprint', async () => {
    const verified = await recorded();
    await utimes(verified.path, new Date(), new Date(Date.now() - 5000));
    const { result, hashed } = await compare(verified);
    expect(hashed).toBe(bytes.length);
    expect(result.verdict).toBe('same');
    if (result.verdict !== 'same') return;
    expect(result.rewrite).toBe(true);
    expect(result.verified.sha256).toBe(verified.sha256);
    expect(result.verified.mtimeMs).toBe((await stat(verified.path)).mtimeMs);
    expect(result.verified.checkedAt).toBe('2026-01-02T03:04:05.000Z');
  });

  it.each([
    ['a byte flipped', false],
    ['a byte flipped with its mtime put back (the ctime still moves)', true],
  ])('reports %s with both digests', async (_name, restoreTimes) => {
    const verified = await recorded();
    await flipByte(verified.path, 1000, restoreTimes);
    const { result } = await compare(verified);
    const flipped = Buffer.from(bytes);
    flipped[1000] = 0x62;
    expect(result).toMatchObject({
      verdict: 'changed',
      reason: expect.stringMatching(restoreTimes ? /ctime/ : /mtime/),
      actualSha256: sha256(flipped),
    });
    expect(verified.sha256).toBe(sha256(bytes)); // the record is never rewritten with the new digest
  });

  it('reports a truncated file and a missing one', async () => {
    const truncated = await recorded();
    await writeFile(truncated.path, bytes.subarray(0, 1000));
    expect((await compare(truncated)).result).toMatchObject({ verdict: 'changed', reason: /size is 1000/ });
    const missing = await recorded();
    await rm(missing.path);
    expect((await compare(missing)).result).toEqual({
      verdict: 'changed',
      reason: 'the file is missing',
      actualSha256: undefined,
      stat: undefined,
    });
  });

  it('hashes a distrusted file whatever its stat, and finds a change the stat cannot show', async () => {
    const verified = await recorded();
    const { result, hashed } = await compare(verified, 'the background re-hash said so');
    expect(hashed).toBe(bytes.length);
    expect(result).toMatchObject({ verdict: 'same', rewrite: true });
    // a record whose sha256 does not describe the bytes (as after a write that kept the stat)
    const lying = { ...verified, sha256: 'ab'.repeat(32) };
    expect((await compare(lying, 'the background re-hash said so')).result).toMatchObject({
      verdict: 'changed',
      reason: 'the background re-hash said so; its sha256 differs from the recorded one',
      actualSha256: sha256(bytes),
    });
  });

  it('completes the fingerprint of a record from an older build without reading the file', async () => {
    const { ino: _ino, ctimeMs: _ctime, ...older } = await recorded();
    const { result, hashed } = await compare(older);
    expect(hashed).toBe(0);
    expect(result).toMatchObject({ verdict: 'same', rewrite: true, verified: { ino: expect.any(Number) } });
  });
});
