// Decides whether a request's credentials open an operation, per AUTH_TYPE.
//
// none: everything is open. local: an ES256 JWT (X-Secret-Key agent token, api_key
// query, or Authorization: Bearer) with `infra_env_id` opens that InfraEnv only;
// one with `role: admin` opens everything; a per-InfraEnv HS256 image token opens
// the read-only image/download operations of its InfraEnv, and so does an opaque image-URL
// token (url-tokens.ts; any token without two dots). Bad or expired tokens → 401,
// valid tokens for another InfraEnv or an admin-only operation → 403.
// A verified image token is remembered for IMAGE_TOKEN_MAX_AGE_MS (every read of a download URL
// would otherwise read the InfraEnv's key from the database first), and so is that an InfraEnv
// exists (infraEnvExists, for the image face's cached answers); the core calls forgetInfraEnv
// after a change so that this replica refuses a revoked token at once.
import { LRUCache } from 'lru-cache';
import { ForbiddenError, UnauthorizedError } from '../../errors.js';
import type { Repository } from '../db/repository.js';
import { verifyImageToken } from './image-tokens.js';
import type { LocalKeys } from './local-keys.js';
import { isJwtShaped } from '../../image-ports/url-token-resolver.js';
import type { UrlTokens } from './url-tokens.js';
import { VerifiedTokens } from './verified-tokens.js';

export type AuthType = 'none' | 'local';

/**
 * How long a verified HS256 image token is trusted without reading its InfraEnv's key again: also
 * how long a token revoked on another replica (regenerate-signing-key, delete) can still open a
 * download here (this replica forgets at once). The same bound as opaque URL tokens'
 * (RESOLVE_CACHE_TTL_MS, url-tokens.ts).
 */
export const IMAGE_TOKEN_MAX_AGE_MS = 5_000;
/** Image tokens remembered at once: one per InfraEnv a BMC or host is reading is the common case. */
export const IMAGE_TOKEN_MAX_ENTRIES = 10_000;

export interface RequestCredentials {
  agentKey?: string;
  apiKey?: string;
  bearer?: string;
  imageToken?: string;
}

export interface Scope {
  /** The InfraEnv the operation touches; undefined for admin-only operations. */
  infraEnvId?: string;
  /** Whether an image token may open it (downloads and GET infra-env). */
  allowImageToken?: boolean;
}

export class Authorizer {
  /** HS256 image tokens that verified, by sha256 (verified-tokens.ts); `sub` names the InfraEnv. */
  private readonly imageTokens = new VerifiedTokens(() => Date.now(), {
    maxEntries: IMAGE_TOKEN_MAX_ENTRIES,
    maxAgeMs: IMAGE_TOKEN_MAX_AGE_MS,
  });

  /** InfraEnvs read to exist (infraEnvExists), by id. */
  private readonly existing = new LRUCache<string, true>({
    max: IMAGE_TOKEN_MAX_ENTRIES,
    ttl: IMAGE_TOKEN_MAX_AGE_MS,
  });

  constructor(
    readonly authType: AuthType,
    private readonly keys: LocalKeys | undefined,
    private readonly repo: Repository,
    private readonly urlTokens?: UrlTokens,
  ) {}

  async authorize(creds: RequestCredentials, scope: Scope): Promise<void> {
    if (this.authType === 'none') return;
    const jwts = [creds.agentKey, creds.apiKey, creds.bearer].filter((t): t is string => !!t);
    if (jwts.length === 0 && !creds.imageToken) throw new UnauthorizedError('missing credentials');
    let forbidden: ForbiddenError | undefined;
    for (const token of jwts) {
      let claims;
      try {
        claims = await this.keys!.verify(token);
      } catch {
        continue;
      }
      if (claims.kind === 'admin') return;
      if (scope.infraEnvId !== undefined && claims.infraEnvId === scope.infraEnvId) return;
      forbidden = new ForbiddenError(
        scope.infraEnvId === undefined
          ? 'this operation needs an admin token'
          : 'the token does not belong to this infra-env',
      );
    }
    if (creds.imageToken && scope.infraEnvId !== undefined) {
      if (!scope.allowImageToken) {
        forbidden ??= new ForbiddenError('image tokens do not open this operation');
      } else if (await this.imageTokenOpens(creds.imageToken, scope.infraEnvId)) {
        return;
      }
    }
    if (forbidden) throw forbidden;
    throw new UnauthorizedError('invalid or expired credentials');
  }

  /** Forgets what was read of InfraEnv `infraEnvId` (its key changed, or it was deleted). */
  forgetInfraEnv(infraEnvId: string): void {
    this.imageTokens.forget((claims) => claims.sub === infraEnvId);
    this.existing.delete(infraEnvId);
  }

  /**
   * Whether InfraEnv `infraEnvId` exists, as read at most IMAGE_TOKEN_MAX_AGE_MS ago: what an
   * answer from the image face's Ignition cache needs besides the credential, so that an InfraEnv
   * deleted on another replica stops being served within that bound whatever opens it (an API
   * key's signature outlives its InfraEnv).
   */
  async infraEnvExists(infraEnvId: string): Promise<boolean> {
    if (this.existing.has(infraEnvId)) return true;
    const mark = this.imageTokens.since();
    const found = (await this.repo.getInfraEnv(infraEnvId)) !== undefined;
    if (found && mark === this.imageTokens.since()) this.existing.set(infraEnvId, true);
    return found;
  }

  /** Whether an image credential (HS256 JWT or opaque URL token) opens `infraEnvId`'s image operations now. */
  private async imageTokenOpens(token: string, infraEnvId: string): Promise<boolean> {
    if (!isJwtShaped(token)) return (await this.urlTokens?.resolve(token))?.infraEnvId === infraEnvId;
    const known = this.imageTokens.get(token);
    if (known) return known.payload.sub === infraEnvId;
    const mark = this.imageTokens.since();
    const infraEnv = await this.repo.getInfraEnv(infraEnvId);
    if (!infraEnv) return false;
    try {
      this.imageTokens.remember(token, await verifyImageToken(token, infraEnv.id, infraEnv.imageTokenKey), mark);
      return true;
    } catch {
      return false;
    }
  }
}
