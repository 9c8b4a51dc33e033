// Log lines a network can provoke: one per key per interval, the suppressed count carried on the next.
import { describe, expect, it } from 'vitest';
import { RateLimitedLog } from './rate-limited-log.js';

describe('RateLimitedLog', () => {
  it('writes the first line of a key, counts the rest within the interval, reports the count on the next', () => {
    const lines: Array<[string, object, string]> = [];
    let now = 0;
    const log = new RateLimitedLog(
      { info: (f, m) => lines.push(['info', f, m]), warn: (f, m) => lines.push(['warn', f, m]) },
      () => now,
      60_000,
    );
    log.warn('a', { n: 1 }, 'first');
    log.warn('a', { n: 2 }, 'second');
    log.warn('a', { n: 3 }, 'third');
    log.info('b', { n: 4 }, 'other key');
    now = 60_000;
    log.warn('a', { n: 5 }, 'after the interval');
    expect(lines).toEqual([
      ['warn', { n: 1 }, 'first'],
      ['info', { n: 4 }, 'other key'],
      ['warn', { n: 5, suppressedSinceLast: 2 }, 'after the interval'],
    ]);
  });

  it('holds at most 1024 keys: the 1025th starts the set over', () => {
    let written = 0;
    const log = new RateLimitedLog({ info: () => written++, warn: () => written++ }, () => 0, 60_000);
    for (let i = 0; i < 1024; i++) log.warn(`k${i}`, {}, 'x');
    log.warn('k0', {}, 'x'); // still remembered: suppressed
    expect(written).toBe(1024);
    log.warn('k1024', {}, 'x'); // a new key on a full set: the set starts over with it
    log.warn('k0', {}, 'x'); // forgotten, so written again
    expect(written).toBe(1026);
  });
});
