// Remembers which tokens passed verification, so that a credential used over and over costs a
// hash and a map lookup instead of a verification: an agent's poll every few seconds with the
// same X-Secret-Key (ES256, local-keys.ts: an ECDSA verification is a hand-off to libuv's pool
// and ~0.1 ms of CPU on the 2-vCPU bench machine; bench workload 6), and every read of a download
// URL carrying an InfraEnv's HS256 image token (authorizer.ts: the image face's Ignition cache asks
// the core to check the credential before each answer; without this memory that is a read of the
// InfraEnv's key from PostgreSQL and an HMAC before the first byte).
//
// What is remembered is what a verification established: that this token's exact bytes verified
// under the key the verifier used, and the claims inside it. Everything that can change is checked
// on every use, by the caller or here:
//   - expiry: `exp` (and a future `nbf`) against the clock at each use, as jose does;
//   - admin tokens: their generation against the current one on every use (admin-generation.ts:
//     `bootsmith auth rotate-admin` revokes at once, on every replica, cache or not);
//   - image tokens: revoked by a new per-InfraEnv key (regenerate-signing-key) or the InfraEnv's
//     deletion. The replica that makes the change forgets the InfraEnv's entries at once (forget,
//     called by the core after the change committed; a verification that was in flight across
//     the change is not remembered: see since()); other replicas hold them at most maxAgeMs
//     (IMAGE_TOKEN_MAX_AGE_MS in authorizer.ts, 5 s), the bound the docs state.
// Entries age out after maxAgeMs whatever they say (10 min by default: a bound for any revocation
// added later), the map holds at most maxEntries (least recently used go first), failures are
// never remembered, and the keys are the tokens' sha256, never the tokens.
// Does NOT: verify anything itself, or decide what a token opens (authorizer.ts). Next: local-keys.ts.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Tokens remembered at once by default: every InfraEnv's agent token and admin tokens of many sessions (~2 MB at most). */
export const MAX_ENTRIES = 10_000;
/** By default an entry is verified again after this long, whatever it says. */
export const MAX_AGE_MS = 10 * 60_000;

export interface VerifiedTokensOptions {
  maxEntries?: number;
  maxAgeMs?: number;
}

export interface VerifiedPayload {
  /** The verified JWT payload (claims), as jose returned it. */
  payload: Record<string, unknown>;
}

interface Entry extends VerifiedPayload {
  /** ms since the epoch after which the entry is not used: the token's `exp`, or maxAgeMs after it was remembered. */
  usableUntil: number;
}

export class VerifiedTokens {
  private readonly entries: LRUCache<string, Entry>;
  private readonly maxAgeMs: number;
  /** How many times forget() ran: a verification that started before one is not remembered. */
  private forgets = 0;

  constructor(
    private readonly now: () => number = Date.now,
    options: VerifiedTokensOptions = {},
  ) {
    this.entries = new LRUCache<string, Entry>({ max: options.maxEntries ?? MAX_ENTRIES });
    this.maxAgeMs = options.maxAgeMs ?? MAX_AGE_MS;
  }

  /** The remembered payload of `token` while it is unexpired; undefined when it must be verified. */
  get(token: string): VerifiedPayload | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() >= entry.usableUntil) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** A mark to take before reading what a verification depends on; hand it to remember(). */
  since(): number {
    return this.forgets;
  }

  /**
   * Remembers a payload that just passed verification (not one that becomes valid later: `nbf`),
   * unless forget() ran since `mark` (the verification may have used what the change replaced).
   */
  remember(token: string, payload: Record<string, unknown>, mark?: number): void {
    if (mark !== undefined && mark !== this.forgets) return;
    const nbf = payload.nbf;
    if (typeof nbf === 'number' && nbf * 1000 > this.now()) return;
    const exp = payload.exp;
    const aged = this.now() + this.maxAgeMs;
    this.entries.set(keyOf(token), {
      payload,
      usableUntil: typeof exp === 'number' ? Math.min(exp * 1000, aged) : aged,
    });
  }

  /** Forgets every entry whose payload `matches` (e.g. the image tokens of a changed InfraEnv). */
  forget(matches: (payload: Record<string, unknown>) => boolean): void {
    this.forgets++;
    for (const [key, entry] of this.entries.entries()) if (matches(entry.payload)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
