// GET /v2/image-url-tokens/self (a bootsmith extension, not in upstream's API): which InfraEnv
// the short image-URL token in the `Image-Token` header opens, and until when.
//
// Lets `--role image` replicas that front this core over ASSISTED_SERVICE_URL resolve
// `/bytoken/<short token>/…` URLs (src/image-ports/remote/remote-url-tokens.ts). The token
// travels in a header, never in the path or query, so it is never in an access log.
// Does NOT: accept JWTs (they name their InfraEnv themselves) or reveal anything about an
// unknown, revoked or expired token beyond the 401.
import type { Router } from 'express';
import { UnauthorizedError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { wrap } from '../../platform/api/request.js';

export function registerImageUrlTokenRoutes(router: Router, ctx: CoreContext): void {
  router.get(
    '/v2/image-url-tokens/self',
    wrap(async (req, res) => {
      const token = req.get('image-token');
      const resolved = token ? await ctx.urlTokens.resolve(token) : undefined;
      if (!resolved) throw new UnauthorizedError('invalid, revoked or expired image URL token');
      res
        .set('Cache-Control', 'no-store')
        .json({ infra_env_id: resolved.infraEnvId, expires_at: resolved.expiresAt.toISOString() });
    }),
  );
}
