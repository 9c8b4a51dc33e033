// Short, opaque, expiring image-URL tokens: `/bytoken/<token>/<version>/<arch>/full.iso`.
//
// Does: mint random tokens (crypto.randomBytes) for downloads/image-url; derive each
// InfraEnv's standing download_url token from its image-token key and the current half-TTL
// slot (so every replica computes the same URL and nothing is stored in clear); store only their
// hashes (hashUrlToken, src/image-ports/url-token-resolver.ts: image_url_tokens, migration 4)
// with the InfraEnv and expiry; bound the table (expired rows purged in batches, at most
// MAX_LIVE_TOKENS_PER_INFRA_ENV minted tokens per InfraEnv); resolve a token to its InfraEnv
// through a short-lived bounded cache, forgotten when the InfraEnv changes
// (regenerate-signing-key, delete).
// Does NOT: handle JWTs (two dots, isJwtShaped: image-tokens.ts / local-keys.ts), decide what a
// token opens (authorizer.ts), or ever log or return a token other than to the caller who minted it.
import { createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { hashUrlToken, URL_TOKEN_BYTES } from '../../image-ports/url-token-resolver.js';
import type { Repository } from '../db/repository.js';

/** Minted (image-url) tokens kept per InfraEnv; a script calling image-url in a loop drops the oldest. */
export const MAX_LIVE_TOKENS_PER_INFRA_ENV = 32;
/** Expired rows deleted per insert: bounded work per request, and faster than inserts can add rows. */
export const EXPIRED_PURGE_BATCH = 500;
/** How long a resolved token is trusted without asking the database: also how long a revoked
 * token can still open an ISO on another replica (this one forgets at once). */
export const RESOLVE_CACHE_TTL_MS = 5_000;
/** Resolved tokens kept in memory (hits and misses): a range storm needs one, many BMCs a few hundred. */
export const RESOLVE_CACHE_MAX_ENTRIES = 10_000;
/** Standing download_url tokens already stored by this process (skips an INSERT per GET). */
const STORED_MEMO_MAX_ENTRIES = 10_000;

const TOKEN_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function newUrlToken(): string {
  return randomBytes(URL_TOKEN_BYTES).toString('base64url');
}

export interface IssuedUrlToken {
  token: string;
  expiresAt: Date;
}

export interface ResolvedUrlToken {
  infraEnvId: string;
  expiresAt: Date;
}

/**
 * The InfraEnv's standing token for the slot containing `now`: slots are half a TTL long and a
 * token lives a whole TTL from its slot's start, so the URL handed out always has at least half
 * its lifetime left, and stays the same for half a TTL.
 */
export function standingUrlToken(imageTokenKey: string, ttlMs: number, now: Date): IssuedUrlToken {
  const slotMs = Math.max(1, Math.floor(ttlMs / 2));
  const slot = Math.floor(now.getTime() / slotMs);
  const token = createHmac('sha256', Buffer.from(imageTokenKey, 'base64url'))
    .update(`bootsmith image-url standing token|${ttlMs}|${slot}`)
    .digest()
    .subarray(0, URL_TOKEN_BYTES)
    .toString('base64url');
  return { token, expiresAt: new Date(slot * slotMs + ttlMs) };
}

export class UrlTokens {
  /** token hash → resolution; `null` for a hash the database does not know. */
  private readonly resolved = new LRUCache<string, ResolvedUrlToken | { unknown: true }>({
    max: RESOLVE_CACHE_MAX_ENTRIES,
    ttl: RESOLVE_CACHE_TTL_MS,
  });
  private readonly storedStanding = new LRUCache<string, true>({ max: STORED_MEMO_MAX_ENTRIES });
  /** How many times forget() ran: a lookup that started before one is not cached (it may predate the change). */
  private forgets = 0;

  constructor(
    private readonly repo: Repository,
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {}

  /** A fresh random token for downloads/image-url, stored hashed; trims and purges in the same transaction. */
  async mint(infraEnvId: string): Promise<IssuedUrlToken> {
    const token = newUrlToken();
    const now = this.now();
    const expiresAt = new Date(now.getTime() + this.ttlMs);
    await this.repo.transaction(async (repo) => {
      await repo.insertUrlTokens([
        { tokenHash: hashUrlToken(token), infraEnvId, standing: false, expiresAt, createdAt: now },
      ]);
      await repo.trimUrlTokens(infraEnvId, MAX_LIVE_TOKENS_PER_INFRA_ENV);
      await repo.purgeExpiredUrlTokens(now, EXPIRED_PURGE_BATCH);
    });
    return { token, expiresAt };
  }

  /** The standing token (download_url) without touching the database: for length checks. */
  standing(imageTokenKey: string): IssuedUrlToken {
    return standingUrlToken(imageTokenKey, this.ttlMs, this.now());
  }

  /** The standing token, its hash stored (once per slot and process) so the image side can resolve it. */
  async publishStanding(infraEnvId: string, imageTokenKey: string): Promise<IssuedUrlToken> {
    const [issued] = await this.publishStandingMany([{ id: infraEnvId, imageTokenKey }]);
    return issued!;
  }

  /** publishStanding for a list of InfraEnvs (GET /v2/infra-envs), in one statement. */
  async publishStandingMany(infraEnvs: { id: string; imageTokenKey: string }[]): Promise<IssuedUrlToken[]> {
    const now = this.now();
    const issued = infraEnvs.map((e) => this.standing(e.imageTokenKey));
    const rows = infraEnvs
      .map((e, i) => ({
        tokenHash: hashUrlToken(issued[i]!.token),
        infraEnvId: e.id,
        standing: true,
        expiresAt: issued[i]!.expiresAt,
        createdAt: now,
      }))
      .filter((r) => !this.storedStanding.has(r.tokenHash));
    if (rows.length > 0) {
      await this.repo.transaction(async (repo) => {
        await repo.insertUrlTokens(rows);
        await repo.purgeExpiredUrlTokens(now, EXPIRED_PURGE_BATCH);
      });
      for (const r of rows) this.storedStanding.set(r.tokenHash, true);
    }
    return issued;
  }

  /** Revokes every token of an InfraEnv (inside the caller's transaction). */
  async revokeAll(repo: Repository, infraEnvId: string): Promise<void> {
    await repo.deleteUrlTokensOf(infraEnvId);
  }

  /** The InfraEnv an opaque token opens now, or undefined (unknown, malformed, revoked or expired). */
  async resolve(token: string): Promise<ResolvedUrlToken | undefined> {
    if (!TOKEN_RE.test(token)) return undefined;
    const hash = hashUrlToken(token);
    let entry = this.resolved.get(hash);
    if (!entry) {
      const mark = this.forgets;
      const row = await this.repo.getUrlToken(hash);
      entry = row ? { infraEnvId: row.infraEnvId, expiresAt: row.expiresAt } : { unknown: true };
      if (mark === this.forgets) this.resolved.set(hash, entry);
    }
    if ('unknown' in entry) return undefined;
    return entry.expiresAt.getTime() > this.now().getTime() ? entry : undefined;
  }

  /** Forgets cached resolutions of an InfraEnv's tokens (after it changed or was deleted). */
  forget(infraEnvId: string): void {
    this.forgets++;
    for (const [hash, entry] of this.resolved.entries()) {
      if (!('unknown' in entry) && entry.infraEnvId === infraEnvId) this.resolved.delete(hash);
    }
    // Standing tokens of a rotated key hash differently; those of a deleted InfraEnv are gone with it.
    this.storedStanding.clear();
  }
}
