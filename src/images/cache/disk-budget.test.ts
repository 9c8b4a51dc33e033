import { describe, expect, it } from 'vitest';
import { planEviction } from './disk-budget.js';

const now = 1_000_000;
const candidates = [
  { id: 'recent', bytes: 400, lastUsedAt: now - 10 },
  { id: 'old', bytes: 300, lastUsedAt: now - 50_000 },
  { id: 'older', bytes: 200, lastUsedAt: now - 90_000 },
  { id: 'orphan', bytes: 50, lastUsedAt: 0 },
];

describe('planEviction', () => {
  it('evicts nothing when the request fits', () => {
    expect(planEviction(candidates, 500, 500, 1000, now, 0)).toEqual({ fits: true, victims: [], shortBy: 0 });
  });

  it('evicts least recently used first (unreferenced files before any image) until the request fits', () => {
    expect(planEviction(candidates, 950, 250, 1000, now, 0)).toEqual({
      fits: true,
      victims: ['orphan', 'older'],
      shortBy: 0,
    });
    expect(planEviction(candidates, 950, 500, 1000, now, 0).victims).toEqual(['orphan', 'older', 'old']);
  });

  it('never evicts a candidate used within minIdleMs, and evicts nothing when that leaves too little room', () => {
    expect(planEviction(candidates, 950, 600, 1000, now, 1000)).toEqual({
      fits: true,
      victims: ['orphan', 'older', 'old'],
      shortBy: 0,
    });
    expect(planEviction(candidates, 950, 700, 1000, now, 1000)).toEqual({ fits: false, victims: [], shortBy: 100 });
    expect(planEviction(candidates, 950, 700, 1000, now, 60_000)).toEqual({ fits: false, victims: [], shortBy: 400 });
  });
});
