// A short-TTL cache in front of any IgnitionSource, keyed by InfraEnv, image type and a
// hash of the credential, with concurrent misses for the same key sharing one lookup.
// A BMC's hundreds of Range requests therefore cost at most one round of upstream calls.
// Each answer from memory first asks the source whether the credential still opens the InfraEnv
// (IgnitionSource.checkCredential, when the source has it: the in-process core, whose answer is
// itself remembered briefly), so a revoked token stops within the core's bound, not this TTL.
//
// Failures are not cached: a 401 or an outage is asked again on the next request.
import { LRUCache } from 'lru-cache';
import { type MetricCell, metricCell } from '../metric-cell.js';
import type { Metrics } from '../metrics.js';
import { credentialFingerprint } from './credential.js';
import type { DiscoveryCustomization, DiscoveryRequest, IgnitionSource } from './ignition-source.js';

export interface CachedSourceOptions {
  ttlMs: number;
  maxEntries?: number;
  metrics?: Metrics;
}

interface Lookup {
  request: DiscoveryRequest;
  fetched: boolean;
}

export class CachedIgnitionSource implements IgnitionSource {
  private readonly cache: LRUCache<string, DiscoveryCustomization, Lookup>;
  /** The lookup counters, hit and miss (a range storm counts one per request: src/metric-cell.ts). */
  private readonly hits: MetricCell | undefined;
  private readonly misses: MetricCell | undefined;

  constructor(
    private readonly inner: IgnitionSource,
    private readonly options: CachedSourceOptions,
  ) {
    const lookups = options.metrics?.ignitionLookups;
    this.hits = lookups && metricCell(lookups, { result: 'hit' });
    this.misses = lookups && metricCell(lookups, { result: 'miss' });
    this.cache = new LRUCache<string, DiscoveryCustomization, Lookup>({
      max: options.maxEntries ?? 10_000,
      ttl: options.ttlMs,
      fetchMethod: async (_key, _stale, { context }) => {
        context.fetched = true;
        return this.inner.discoveryCustomization(context.request);
      },
    });
  }

  async discoveryCustomization(request: DiscoveryRequest): Promise<DiscoveryCustomization> {
    if (this.options.ttlMs <= 0) {
      this.misses?.add();
      return this.inner.discoveryCustomization(request);
    }
    const key = `${request.infraEnvId}|${request.imageType}|${credentialFingerprint(request.credential)}`;
    const lookup: Lookup = { request, fetched: false };
    // A fresh entry is read without fetch()'s promise (a range storm's every request but the first).
    const value = this.cache.get(key) ?? (await this.cache.fetch(key, { context: lookup }));
    // A caller that joined another caller's in-flight lookup counts as a hit: it cost nothing upstream.
    if (lookup.fetched) this.misses?.add();
    else this.hits?.add();
    if (value === undefined) throw new Error('ignition lookup returned nothing');
    // Served from memory: the credential is asked again (a revocation on another replica must not
    // wait for the TTL); a lookup of its own checked it already.
    if (!lookup.fetched) await this.inner.checkCredential?.(request);
    return value;
  }

  /** Forgets everything cached for an InfraEnv (after it was updated in-process). */
  invalidate(infraEnvId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${infraEnvId}|`)) this.cache.delete(key);
  }
}
