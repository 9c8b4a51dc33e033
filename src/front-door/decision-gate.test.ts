// The front door's decision gate: admits up to its running limit, queues the rest first come first
// served, refuses when the line is full or a wait runs out, and a refused waiter leaves the line.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DecisionGate } from './decision-gate.js';

describe('DecisionGate', () => {
  afterEach(() => vi.useRealTimers());

  it('admits up to its limit at once, then in arrival order as decisions finish', async () => {
    const gate = new DecisionGate({ running: 2, waiting: 10, waitMs: 60_000 });
    expect(await gate.acquire()).toBe(true);
    expect(await gate.acquire()).toBe(true);
    const order: number[] = [];
    const third = gate.acquire().then((ok) => order.push(3) && ok);
    const fourth = gate.acquire().then((ok) => order.push(4) && ok);
    expect(gate.waiting).toBe(2);
    gate.release();
    expect(await third).toBe(true);
    gate.release();
    expect(await fourth).toBe(true);
    expect(order).toEqual([3, 4]);
    expect(gate.waiting).toBe(0);
  });

  it('refuses at once when the line is full', async () => {
    const gate = new DecisionGate({ running: 1, waiting: 1, waitMs: 60_000 });
    expect(await gate.acquire()).toBe(true);
    const waiting = gate.acquire();
    expect(await gate.acquire()).toBe(false);
    gate.release();
    expect(await waiting).toBe(true);
  });

  it('refuses a waiter whose wait ran out, and the line moves on without it', async () => {
    vi.useFakeTimers();
    const gate = new DecisionGate({ running: 1, waiting: 5, waitMs: 1_000 });
    expect(await gate.acquire()).toBe(true);
    const late = gate.acquire();
    await vi.advanceTimersByTimeAsync(999);
    expect(gate.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await late).toBe(false);
    expect(gate.waiting).toBe(0);
    const next = gate.acquire();
    gate.release();
    expect(await next).toBe(true);
  });
});
