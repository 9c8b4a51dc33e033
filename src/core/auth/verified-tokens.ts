// Remembers which ES256 tokens passed signature verification (local-keys.ts), so that an agent's
// poll every few seconds, each with the same X-Secret-Key, costs a hash and a map lookup instead
// of an ECDSA verification (a hand-off to libuv's pool and ~0.1 ms of CPU on the 2-vCPU bench
// machine; bench workload 6 with AUTH_TYPE=local).
//
// What is remembered is only what cannot change while this process runs: that the signature over
// this token's exact bytes is good under the public key it loaded at start (the key pair is
// created once and never replaced; a replica loads the same one), and the claims inside it.
// Everything that can change is still checked on every use by the caller or here:
//   - expiry: `exp` (and a future `nbf`) against the clock at each use, as jose does;
//   - admin tokens: their generation against the current one on every use (admin-generation.ts:
//     `bootsmith auth rotate-admin` revokes at once, on every replica, cache or not);
//   - image tokens (HS256, per-InfraEnv key, revoked by regenerating the key) are not handled here.
// Entries also age out after MAX_AGE_MS, a bound for any revocation added later, and the map holds
// at most MAX_ENTRIES (least recently used go first). Failures are never remembered. Keys are the
// tokens' sha256, not the tokens.
// Does NOT: verify anything itself, or decide what a token opens (authorizer.ts).
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Tokens remembered at once: every InfraEnv's agent token and admin tokens of many sessions (~2 MB at most). */
export const MAX_ENTRIES = 10_000;
/** An entry is verified again after this long, whatever it says. */
export const MAX_AGE_MS = 10 * 60_000;

export interface VerifiedPayload {
  /** The verified JWT payload (claims), as jose returned it. */
  payload: Record<string, unknown>;
}

interface Entry extends VerifiedPayload {
  /** ms since the epoch after which the token is expired (`exp`); Infinity without one. */
  expiresAt: number;
}

export class VerifiedTokens {
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: MAX_AGE_MS });

  constructor(private readonly now: () => number = Date.now) {}

  /** The remembered payload of `token` while it is unexpired; undefined when it must be verified. */
  get(token: string): VerifiedPayload | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Remembers a payload that just passed verification (not one that becomes valid later: `nbf`). */
  remember(token: string, payload: Record<string, unknown>): void {
    const nbf = payload.nbf;
    if (typeof nbf === 'number' && nbf * 1000 > this.now()) return;
    const exp = payload.exp;
    this.entries.set(keyOf(token), { payload, expiresAt: typeof exp === 'number' ? exp * 1000 : Infinity });
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
