// The counting semaphore: admits up to its limit, queues the rest first come first served, refuses
// at once when its line is full, and a waiter whose signal fires leaves the line.
import { describe, expect, it } from 'vitest';
import { Semaphore, SemaphoreFullError } from './semaphore.js';

const never = new AbortController().signal;

describe('Semaphore', () => {
  it('admits up to its limit at once, then in arrival order as holders release', async () => {
    const semaphore = new Semaphore(2, 10);
    const first = await semaphore.acquire(never);
    const second = await semaphore.acquire(never);
    const order: number[] = [];
    const third = semaphore.acquire(never).then((release) => (order.push(3), release));
    const fourth = semaphore.acquire(never).then((release) => (order.push(4), release));
    expect(semaphore.waiting).toBe(2);
    first();
    first(); // idempotent: the slot is not given twice
    await third;
    expect(semaphore.waiting).toBe(1);
    second();
    await fourth;
    expect(order).toEqual([3, 4]);
    expect(semaphore.waiting).toBe(0);
    expect(semaphore.active).toBe(2);
  });

  it('refuses at once when the line is full', async () => {
    const semaphore = new Semaphore(1, 1);
    const release = await semaphore.acquire(never);
    const waiting = semaphore.acquire(never);
    await expect(semaphore.acquire(never)).rejects.toBeInstanceOf(SemaphoreFullError);
    release();
    await expect(waiting).resolves.toBeTypeOf('function');
  });

  it("rejects a waiter whose signal fires with the signal's reason, and the line moves on without it", async () => {
    const semaphore = new Semaphore(1, 5);
    const release = await semaphore.acquire(never);
    const deadline = new AbortController();
    const late = semaphore.acquire(deadline.signal);
    expect(semaphore.waiting).toBe(1);
    const reason = new Error('waited too long');
    deadline.abort(reason);
    await expect(late).rejects.toBe(reason);
    expect(semaphore.waiting).toBe(0);
    const next = semaphore.acquire(never);
    release();
    await expect(next).resolves.toBeTypeOf('function');
  });
});
