// Rendered discovery Ignition, kept per content: an InfraEnv's config is rendered once per
// version of what it is made of, not once per `discovery.ign` fetch or Ignition-cache expiry.
//
// Does: key each render by a sha256 over every input of discovery.ts (the InfraEnv fields it
// reads and the service settings), so any change of any input is a new key and nothing stale
// is ever served; share one render among concurrent callers; keep results (and the 400 of an
// invalid config) in an LRU bounded by bytes. Does not: render (discovery.ts) or decide who
// may read a config (the callers authorize first). Holds secrets in memory only, never logs them.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { BootsmithError } from '../../errors.js';
import type { InfraEnvRecord } from '../model.js';
import { renderDiscoveryIgnition, type DiscoveryContext } from './discovery.js';

/** Bytes of rendered configs kept: a few dozen of the largest (≈1.1 MiB), thousands of usual ones (≈10 KiB). */
export const RENDER_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** What a cached refusal counts for in the byte budget. */
const ERROR_ENTRY_BYTES = 1024;

type Rendered = { bytes: Buffer } | { error: unknown };

export function renderFingerprint(infraEnv: InfraEnvRecord, ctx: DiscoveryContext): string {
  const hash = createHash('sha256');
  const add = (value: string | undefined | null) => {
    const text = value ?? '\u0000none';
    hash.update(`${Buffer.byteLength(text)}:`).update(text);
  };
  add(infraEnv.id);
  add(infraEnv.pullSecret);
  add(infraEnv.sshAuthorizedKey);
  add(JSON.stringify(infraEnv.proxy));
  add(infraEnv.additionalNtpSources);
  add(JSON.stringify(infraEnv.staticNetworkConfig));
  add(infraEnv.additionalTrustBundle);
  add(infraEnv.ignitionConfigOverride);
  add(ctx.serviceBaseUrl);
  add(ctx.agentImage);
  add(ctx.agentToken);
  add(ctx.serviceCaCert);
  return hash.digest('base64url');
}

/** A refusal of the config itself (400/413) is as lasting as its content; anything else is retried. */
function isRefusal(err: unknown): boolean {
  return err instanceof BootsmithError && (err.kind === 'bad-request' || err.kind === 'payload-too-large');
}

export class DiscoveryRenderCache {
  private readonly done: LRUCache<string, Rendered>;
  private readonly inFlight = new Map<string, Promise<Rendered>>();
  /** Renders actually run (not served from the cache): for tests and metrics. */
  renders = 0;

  constructor(maxBytes = RENDER_CACHE_MAX_BYTES) {
    this.done = new LRUCache<string, Rendered>({
      maxSize: maxBytes,
      sizeCalculation: (r) => ('bytes' in r ? Math.max(1, r.bytes.length) : ERROR_ENTRY_BYTES),
    });
  }

  async render(infraEnv: InfraEnvRecord, ctx: DiscoveryContext): Promise<Buffer> {
    const key = renderFingerprint(infraEnv, ctx);
    let result = this.done.get(key);
    if (!result) {
      let pending = this.inFlight.get(key);
      if (!pending) {
        this.renders++;
        pending = renderDiscoveryIgnition(infraEnv, ctx).then(
          (bytes): Rendered => ({ bytes }),
          (error: unknown): Rendered => ({ error }),
        );
        this.inFlight.set(key, pending);
        void pending.then((r) => {
          this.inFlight.delete(key);
          if ('bytes' in r || isRefusal(r.error)) this.done.set(key, r);
        });
      }
      result = await pending;
    }
    if ('error' in result) throw result.error;
    return result.bytes;
  }
}
