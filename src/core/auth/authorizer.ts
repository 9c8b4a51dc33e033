// Decides whether a request's credentials open an operation, per AUTH_TYPE.
//
// none: everything is open. local: an ES256 JWT (X-Secret-Key agent token, api_key
// query, or Authorization: Bearer) with `infra_env_id` opens that InfraEnv only;
// one with `role: admin` opens everything; a per-InfraEnv HS256 image token opens
// the read-only image/download operations of its InfraEnv, and so does an opaque image-URL
// token (url-tokens.ts; any token without two dots). Bad or expired tokens → 401,
// valid tokens for another InfraEnv or an admin-only operation → 403.
import { ForbiddenError, UnauthorizedError } from '../../errors.js';
import type { Repository } from '../db/repository.js';
import { verifyImageToken } from './image-tokens.js';
import type { LocalKeys } from './local-keys.js';
import { isJwtShaped } from '../../image-ports/url-token-resolver.js';
import type { UrlTokens } from './url-tokens.js';

export type AuthType = 'none' | 'local';

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
      } else {
        if (!isJwtShaped(creds.imageToken)) {
          const resolved = await this.urlTokens?.resolve(creds.imageToken);
          if (resolved && resolved.infraEnvId === scope.infraEnvId) return;
        }
        const infraEnv = isJwtShaped(creds.imageToken) ? await this.repo.getInfraEnv(scope.infraEnvId) : undefined;
        if (infraEnv) {
          try {
            await verifyImageToken(creds.imageToken, infraEnv.id, infraEnv.imageTokenKey);
            return;
          } catch {
            /* fall through */
          }
        }
      }
    }
    if (forbidden) throw forbidden;
    throw new UnauthorizedError('invalid or expired credentials');
  }
}
