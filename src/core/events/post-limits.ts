// Rate and size limits on agent-posted events (POST /v2/events), per host and per InfraEnv:
// token buckets, one per host and one per InfraEnv (events without an InfraEnv share one),
// each holding a minute's worth of events and of bytes and refilling continuously.
//
// Does: charge an event to every bucket it belongs to, all or nothing, and say how long to wait
// when one is empty (the handler answers 429 with Retry-After); keep at most MAX_BUCKETS keys,
// dropping the least recently used (a dropped bucket comes back full: an idle key loses
// nothing, and an attacker rotating host ids still drains the InfraEnv's bucket).
// Does NOT: share state between replicas (each replica enforces its own share, as with
// HTTP_MAX_IDLE_PER_ADDRESS; N replicas admit up to N times the rate), persist anything, or
// apply upstream's per-name EVENT_RATE_LIMITS (handlers/events.ts does, in the database).
import type { EventSettings } from '../event-limits.js';

/** Buckets kept: a few per active host; beyond this the least recently used are forgotten. */
export const MAX_BUCKETS = 100_000;
const MINUTE_MS = 60_000;

interface Bucket {
  events: number;
  bytes: number;
  at: number;
}

export interface EventScope {
  hostId?: string | undefined;
  infraEnvId?: string | undefined;
}

type Limits = Pick<
  EventSettings,
  'perHostPerMinute' | 'perInfraEnvPerMinute' | 'bytesPerHostPerMinute' | 'bytesPerInfraEnvPerMinute'
>;

/** Why an event was refused: the setting whose bucket is empty, its value, and when to retry. */
export interface Refusal {
  waitMs: number;
  limit:
    | 'EVENTS_PER_HOST_PER_MINUTE'
    | 'EVENTS_PER_INFRA_ENV_PER_MINUTE'
    | 'EVENT_BYTES_PER_HOST_PER_MINUTE'
    | 'EVENT_BYTES_PER_INFRA_ENV_PER_MINUTE';
  value: number;
}

export class EventPostLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: Limits,
    private readonly now: () => number = Date.now,
    private readonly maxBuckets = MAX_BUCKETS,
  ) {}

  /**
   * Charges one event of `bytes` to its buckets. Returns undefined when admitted, else how long
   * until the emptiest bucket holds enough again and which limit it is (nothing is charged then).
   */
  take(scope: EventScope, bytes: number): Refusal | undefined {
    const t = this.now();
    const buckets: [string, 'host' | 'infra-env', number, number][] = [];
    if (scope.hostId)
      buckets.push([`host:${scope.hostId}`, 'host', this.limits.perHostPerMinute, this.limits.bytesPerHostPerMinute]);
    buckets.push([
      scope.infraEnvId ? `infra-env:${scope.infraEnvId}` : 'no-infra-env',
      'infra-env',
      this.limits.perInfraEnvPerMinute,
      this.limits.bytesPerInfraEnvPerMinute,
    ]);
    let refusal: Refusal | undefined;
    const refuse = (waitMs: number, limit: Refusal['limit'], value: number) => {
      if (!refusal || waitMs > refusal.waitMs) refusal = { waitMs: Math.ceil(waitMs), limit, value };
    };
    const filled = buckets.map(([key, who, events, maxBytes]) => {
      const b = this.refill(key, events, maxBytes, t);
      if (b.events < 1)
        refuse(
          ((1 - b.events) / events) * MINUTE_MS,
          who === 'host' ? 'EVENTS_PER_HOST_PER_MINUTE' : 'EVENTS_PER_INFRA_ENV_PER_MINUTE',
          events,
        );
      if (b.bytes < bytes) {
        const limit = who === 'host' ? 'EVENT_BYTES_PER_HOST_PER_MINUTE' : 'EVENT_BYTES_PER_INFRA_ENV_PER_MINUTE';
        // an event larger than a whole minute's worth can never pass; its sender learns that in a minute
        refuse(bytes > maxBytes ? MINUTE_MS : ((bytes - b.bytes) / maxBytes) * MINUTE_MS, limit, maxBytes);
      }
      return b;
    });
    if (refusal) return refusal;
    for (const b of filled) {
      b.events -= 1;
      b.bytes -= bytes;
    }
    return undefined;
  }

  private refill(key: string, events: number, maxBytes: number, t: number): Bucket {
    let b = this.buckets.get(key);
    if (b)
      this.buckets.delete(key); // re-inserted last: the map stays in least-recently-used order
    else b = { events, bytes: maxBytes, at: t };
    const elapsed = Math.max(0, t - b.at);
    b.events = Math.min(events, b.events + (elapsed / MINUTE_MS) * events);
    b.bytes = Math.min(maxBytes, b.bytes + (elapsed / MINUTE_MS) * maxBytes);
    b.at = t;
    this.buckets.set(key, b);
    while (this.buckets.size > this.maxBuckets) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
    }
    return b;
  }

  /** Buckets held (for tests and the bound). */
  get size(): number {
    return this.buckets.size;
  }
}
