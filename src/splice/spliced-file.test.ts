import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseFile } from './base-file.js';
import { type Patch, SplicedFile } from './spliced-file.js';

/** Applies patches and tail to a copy of `base`: the reference the stream must equal. */
function materialise(base: Buffer, patches: Patch[], tail: Buffer[]): Buffer {
  const copy = Buffer.from(base);
  for (const p of patches) {
    copy.fill(0, p.offset, p.offset + p.length);
    p.bytes.copy(copy, p.offset);
  }
  return Buffer.concat([copy, ...tail]);
}

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('SplicedFile', () => {
  let dir: string;
  let baseBytes: Buffer;
  let base: BaseFile;
  const baseSize = 3 * 1024 * 1024 + 12345; // spans several read chunks

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'splice-'));
    baseBytes = randomBytes(baseSize);
    await writeFile(path.join(dir, 'base.iso'), baseBytes);
    base = await BaseFile.open(path.join(dir, 'base.iso'));
  });
  afterAll(async () => {
    base.close();
    await rm(dir, { recursive: true, force: true });
  });

  const patches: Patch[] = [
    { offset: 2048 * 20, length: 256 * 1024, bytes: randomBytes(5000) }, // zero-filled tail of an area
    { offset: 1024 * 1024 - 10, length: 20, bytes: randomBytes(20) }, // straddles a read chunk boundary
    { offset: 2 * 1024 * 1024, length: 1137, bytes: Buffer.from('karg1 karg2\n'.padEnd(1137, '#')) },
    { offset: baseSize - 7, length: 7, bytes: randomBytes(7) }, // touches the end of the base
  ];
  const tail = [Buffer.alloc(3), randomBytes(777)];

  it('streams exactly the materialised bytes for the whole file', async () => {
    const spliced = new SplicedFile(base, { patches, tail });
    const expected = materialise(baseBytes, patches, tail);
    expect(spliced.size).toBe(expected.length);
    const whole = await spliced.read(0, spliced.size - 1);
    expect(whole.equals(expected)).toBe(true);
  });

  it('matches the materialised copy on 500 random ranges (property test)', async () => {
    const spliced = new SplicedFile(base, { patches, tail });
    const expected = materialise(baseBytes, patches, tail);
    const random = seededRandom(42);
    for (let i = 0; i < 500; i++) {
      const a = Math.floor(random() * spliced.size);
      const span = random() < 0.5 ? Math.floor(random() * 4096) : Math.floor(random() * 2 * 1024 * 1024);
      const b = Math.min(spliced.size - 1, a + span);
      const got = await spliced.read(a, b);
      expect(got.length).toBe(b - a + 1);
      expect(got.equals(expected.subarray(a, b + 1)), `range ${a}-${b}`).toBe(true);
    }
  });

  it('readInto copies exactly the materialised bytes into a caller buffer on 300 random ranges', async () => {
    const spliced = new SplicedFile(base, { patches, tail });
    const expected = materialise(baseBytes, patches, tail);
    const random = seededRandom(7);
    const readInto = (target: Buffer, offset: number, length: number, position: number) =>
      new Promise<number>((resolve, reject) =>
        spliced.readInto(target, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))),
      );
    for (let i = 0; i < 300; i++) {
      const position = Math.floor(random() * spliced.size);
      const length = Math.floor(random() * 1.5 * 1024 * 1024) + 1;
      const target = Buffer.alloc(length + 16, 0xee);
      const copied = await readInto(target, 16, length, position);
      expect(copied).toBe(Math.min(length, spliced.size - position));
      expect(
        target.subarray(16, 16 + copied).equals(expected.subarray(position, position + copied)),
        `at ${position}`,
      ).toBe(true);
      expect(target.subarray(0, 16).every((b) => b === 0xee)).toBe(true);
    }
  });

  it('leaves every byte outside the patches equal to the base', async () => {
    const spliced = new SplicedFile(base, { patches });
    const whole = await spliced.read(0, spliced.size - 1);
    const covered = new Uint8Array(baseSize);
    for (const p of patches) covered.fill(1, p.offset, p.offset + p.length);
    let mismatches = 0;
    for (let i = 0; i < baseSize; i++) if (!covered[i] && whole[i] !== baseBytes[i]) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('derives a strong ETag from the base identity and the patch bytes', async () => {
    const a = new SplicedFile(base, { patches });
    const b = new SplicedFile(base, { patches: [...patches].reverse() });
    expect(a.etag).toBe(b.etag);
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const changed = patches.map((p, i) => (i === 0 ? { ...p, bytes: Buffer.concat([p.bytes, Buffer.from([1])]) } : p));
    expect(new SplicedFile(base, { patches: changed }).etag).not.toBe(a.etag);
    expect(new SplicedFile(base, { patches, tail: [Buffer.from('x')] }).etag).not.toBe(a.etag);
    const otherBase = await BaseFile.open(path.join(dir, 'base.iso'), 'sha256:other');
    expect(new SplicedFile(otherBase, { patches }).etag).not.toBe(a.etag);
    otherBase.close();
  });

  it('rejects overlapping, oversized and out-of-bounds patches', () => {
    const overlap: Patch[] = [
      { offset: 0, length: 100, bytes: Buffer.alloc(1) },
      { offset: 99, length: 10, bytes: Buffer.alloc(1) },
    ];
    expect(() => new SplicedFile(base, { patches: overlap })).toThrow(/invalid/);
    expect(() => new SplicedFile(base, { patches: [{ offset: 0, length: 2, bytes: Buffer.alloc(3) }] })).toThrow(
      /invalid/,
    );
    expect(
      () => new SplicedFile(base, { patches: [{ offset: baseSize - 1, length: 2, bytes: Buffer.alloc(0) }] }),
    ).toThrow(/invalid/);
  });

  it('rejects ranges outside the file', () => {
    const spliced = new SplicedFile(base);
    expect(() => spliced.stream(0, spliced.size)).toThrow();
    expect(() => spliced.stream(5, 4)).toThrow();
  });

  it('fails the stream, never truncates silently, when the base file is shorter than recorded', async () => {
    const shortPath = path.join(dir, 'short.iso');
    await writeFile(shortPath, baseBytes.subarray(0, 4096));
    const short = await BaseFile.open(shortPath);
    (short as { size: number }).size = baseSize; // simulate a file truncated after it was opened
    const spliced = new SplicedFile(short);
    await expect(spliced.read(0, 10_000)).rejects.toThrow(/file ended at 4096/);
    short.close();
  });

  it('exposes a window of the base with patches relative to it and a tail (a PXE initrd)', async () => {
    const window = { offset: 1_000_001, length: 70_001 };
    const windowPatches: Patch[] = [{ offset: 10, length: 5, bytes: Buffer.from('abc') }];
    const windowTail = [Buffer.alloc(3), Buffer.from('archive')];
    const spliced = new SplicedFile(base, { window, patches: windowPatches, tail: windowTail });
    const expected = materialise(
      baseBytes.subarray(window.offset, window.offset + window.length),
      windowPatches,
      windowTail,
    );
    expect(spliced.size).toBe(expected.length);
    expect((await spliced.read(0, spliced.size - 1)).equals(expected)).toBe(true);
    expect((await spliced.read(70_000, 70_003)).equals(expected.subarray(70_000, 70_004))).toBe(true);
    expect(spliced.etag).not.toBe(
      new SplicedFile(base, { window: { ...window, offset: 1 }, patches: windowPatches, tail: windowTail }).etag,
    );
    expect(() => new SplicedFile(base, { window: { offset: baseSize - 1, length: 2 } })).toThrow(/outside/);
  });

  it('keeps memory independent of the base size: a 4 GiB sparse base streams through small buffers', async () => {
    const sparsePath = path.join(dir, 'sparse.iso');
    const { open } = await import('node:fs/promises');
    const handle = await open(sparsePath, 'w');
    await handle.truncate(4 * 1024 * 1024 * 1024 + 4096); // past 2^32: 64-bit offsets
    await handle.close();
    const sparse = await BaseFile.open(sparsePath);
    const area = 4 * 1024 * 1024 * 1024 + 2048;
    const spliced = new SplicedFile(sparse, { patches: [{ offset: area, length: 2048, bytes: Buffer.from('hello') }] });
    const got = await spliced.read(area - 2, area + 6);
    expect(got.equals(Buffer.from([0, 0, ...Buffer.from('hello'), 0, 0]))).toBe(true);
    sparse.close();
  });
});
