import { describe, expect, it } from 'vitest';
import { BufferPool, bodyBufferPool, CHUNK_BYTES, WHOLE_BODY_BYTES } from './buffer-pool.js';

describe('BufferPool', () => {
  it('hands back the buffer it was given, of the requested size', () => {
    const pool = new BufferPool([16, 32], 2);
    const a = pool.take(16);
    expect(a.length).toBe(16);
    pool.giveBack(a);
    expect(pool.freeCount(16)).toBe(1);
    expect(pool.take(16)).toBe(a);
    expect(pool.freeCount(16)).toBe(0);
    const b = pool.take(32);
    expect(b.length).toBe(32);
    expect(b).not.toBe(a);
  });

  it('keeps at most maxFreePerSize free buffers per size', () => {
    const pool = new BufferPool([8], 2);
    const taken = [pool.take(8), pool.take(8), pool.take(8)];
    for (const b of taken) pool.giveBack(b);
    expect(pool.freeCount(8)).toBe(2);
  });

  it('drops buffers of sizes it does not pool and refuses to make them', () => {
    const pool = new BufferPool([8], 2);
    pool.giveBack(Buffer.alloc(9));
    expect(pool.freeCount(9)).toBe(0);
    expect(pool.freeCount(8)).toBe(0);
    expect(() => pool.take(9)).toThrow(RangeError);
  });

  it('pools the body pump sizes', () => {
    expect(bodyBufferPool.take(CHUNK_BYTES).length).toBe(CHUNK_BYTES);
    expect(bodyBufferPool.take(WHOLE_BODY_BYTES).length).toBe(WHOLE_BODY_BYTES);
  });
});
