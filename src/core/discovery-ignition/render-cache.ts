// Rendered discovery Ignition, kept per content: an InfraEnv's config is rendered once per
// version of what it is made of, not once per `discovery.ign` fetch or Ignition-cache expiry.
//
// Does: key each render by a sha256 over every input of discovery.ts (the InfraEnv fields it
// reads and the service settings), so any change of any input is a new key and nothing stale
// is ever served; share one render among concurrent callers; keep results (and the 400 of an
// invalid config) in an LRU bounded by bytes. Does not: render (discovery.ts) or decide who
// may read a config (the callers authorize first). Holds secrets in memory only, never logs them.
import { webcrypto } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { BootsmithError } from '../../errors.js';
import type { InfraEnvRecord } from '../model.js';
import { renderDiscoveryIgnition, type DiscoveryContext } from './discovery.js';

/** Bytes of rendered configs kept: a few dozen of the largest (≈1.1 MiB), thousands of usual ones (≈10 KiB). */
export const RENDER_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** What a cached refusal counts for in the byte budget. */
const ERROR_ENTRY_BYTES = 1024;

type Rendered = { bytes: Buffer } | { error: unknown };

/** Every input of a render, length-prefixed (so no two inputs can run into each other). */
function renderInputs(infraEnv: InfraEnvRecord, ctx: DiscoveryContext): Buffer {
  const parts: Buffer[] = [];
  const add = (value: string | undefined | null) => {
    const text = Buffer.from(value ?? '\u0000none', 'utf8');
    parts.push(Buffer.from(`${text.length}:`), text);
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
  add(ctx.registry?.registriesConf?.text);
  add(ctx.registry?.registriesConf?.policyJson);
  add(ctx.registry?.caPem);
  return Buffer.concat(parts);
}

/**
 * The cache key: sha256 of every input, computed by WebCrypto off the main thread (a
 * megabyte-sized override costs the event loop a copy, not a hash).
 */
export async function renderFingerprint(infraEnv: InfraEnvRecord, ctx: DiscoveryContext): Promise<string> {
  const digest = await webcrypto.subtle.digest('SHA-256', renderInputs(infraEnv, ctx));
  return Buffer.from(digest).toString('base64url');
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
    const key = await renderFingerprint(infraEnv, ctx);
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
