// The per-host and per-InfraEnv buckets of agent-posted events, on an injected clock: a minute's
// worth passes, the next is refused with the wait and the limit named, tokens come back with
// time, all of an InfraEnv's hosts share its bucket, bytes are limited like counts, and the
// number of buckets kept is bounded.
import { describe, expect, it } from 'vitest';
import { EventPostLimiter } from './post-limits.js';

const LIMITS = {
  perHostPerMinute: 6,
  perInfraEnvPerMinute: 10,
  bytesPerHostPerMinute: 6000,
  bytesPerInfraEnvPerMinute: 100_000,
};

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('event post limiter', () => {
  it("admits a minute's worth per host, then refuses with the wait and the limit", () => {
    const c = clock();
    const l = new EventPostLimiter(LIMITS, c.now);
    const host = { hostId: 'h1', infraEnvId: 'ie' };
    for (let i = 0; i < 6; i++) expect(l.take(host, 10), `event ${i}`).toBeUndefined();
    const refused = l.take(host, 10);
    expect(refused).toEqual({ waitMs: 10_000, limit: 'EVENTS_PER_HOST_PER_MINUTE', value: 6 });
    c.advance(9_999);
    expect(l.take(host, 10)?.limit).toBe('EVENTS_PER_HOST_PER_MINUTE');
    c.advance(1);
    expect(l.take(host, 10)).toBeUndefined(); // one token back after a sixth of a minute
  });

  it("charges every host of an InfraEnv to the InfraEnv's bucket, and refuses without charging", () => {
    const c = clock();
    const l = new EventPostLimiter(LIMITS, c.now);
    for (let i = 0; i < 10; i++) expect(l.take({ hostId: `h${i}`, infraEnvId: 'ie' }, 10)).toBeUndefined();
    expect(l.take({ hostId: 'h-new', infraEnvId: 'ie' }, 10)?.limit).toBe('EVENTS_PER_INFRA_ENV_PER_MINUTE');
    // the refused host was not charged: its own bucket is still full
    expect(l.take({ hostId: 'h-new', infraEnvId: 'other' }, 10)).toBeUndefined();
    // events without an InfraEnv share one bucket of the InfraEnv size
    for (let i = 0; i < 10; i++) expect(l.take({}, 10)).toBeUndefined();
    expect(l.take({}, 10)?.limit).toBe('EVENTS_PER_INFRA_ENV_PER_MINUTE');
  });

  it('limits bytes like events, and an event larger than a minute of bytes never passes', () => {
    const c = clock();
    const l = new EventPostLimiter(LIMITS, c.now);
    const host = { hostId: 'h1', infraEnvId: 'ie' };
    expect(l.take(host, 4000)).toBeUndefined();
    expect(l.take(host, 4000)).toEqual({ waitMs: 20_000, limit: 'EVENT_BYTES_PER_HOST_PER_MINUTE', value: 6000 });
    expect(l.take(host, 7000)?.waitMs).toBe(60_000);
    c.advance(3_600_000);
    expect(l.take(host, 7000)?.limit).toBe('EVENT_BYTES_PER_HOST_PER_MINUTE');
  });

  it('keeps at most its bound of buckets, forgetting the least recently used', () => {
    const c = clock();
    const l = new EventPostLimiter(LIMITS, c.now, 50);
    for (let i = 0; i < 6; i++) l.take({ hostId: 'busy', infraEnvId: 'ie0' }, 1);
    for (let i = 0; i < 1000; i++) {
      l.take({ hostId: `rotating-${i}`, infraEnvId: `ie-${i}` }, 1);
      expect(l.size).toBeLessThanOrEqual(50);
      if (i % 10 === 0) l.take({ hostId: 'busy', infraEnvId: 'ie0' }, 1); // stays recent, stays empty
    }
    expect(l.take({ hostId: 'busy', infraEnvId: 'ie0' }, 1)?.limit).toBe('EVENTS_PER_HOST_PER_MINUTE');
  });
});
