// The in-process IgnitionSource: what the image side calls to customize an InfraEnv's ISO/initrd.
//
// Validates the caller's credential exactly as the API would (AUTH_TYPE none/local,
// api key, bearer JWT, image token; a token of one InfraEnv never opens another), then returns
// the discovery Ignition, the append-only kernel arguments and, when the InfraEnv has static
// networking, the minimal-initrd archive. checkCredential does the first step alone, and checks
// the InfraEnv still exists, for the cache in front (src/image-ports/cached-ignition-source.ts).
// Never logs the result.
import type {
  Credential,
  DiscoveryCustomization,
  DiscoveryRequest,
  IgnitionSource,
} from '../image-ports/ignition-source.js';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { UrlTokenResolver } from '../image-ports/url-token-resolver.js';
import type { RequestCredentials } from './auth/authorizer.js';
import type { CoreContext } from './context.js';
import { isUuid } from '../uuid.js';
import { minimalInitrd } from './infraenv/minimal-initrd.js';
import { discoveryIgnitionBytes, ensureAgentToken, getInfraEnvOr404 } from './infraenv/service.js';

export function credentialToRequest(c: Credential): RequestCredentials {
  switch (c.kind) {
    case 'none':
      return {};
    case 'api-key':
      return { apiKey: c.value };
    case 'image-token':
      return { imageToken: c.value };
    case 'authorization': {
      const m = /^Bearer\s+(.+)$/i.exec(c.value);
      return { bearer: (m ? m[1]! : c.value).trim() };
    }
  }
}

export function createIgnitionSource(ctx: CoreContext): IgnitionSource {
  /** The request's InfraEnv id (lower case) once its credential opens it. */
  const authorized = async (request: DiscoveryRequest): Promise<string> => {
    if (!isUuid(request.infraEnvId)) throw new BadRequestError('infra-env id must be a UUID');
    const id = request.infraEnvId.toLowerCase();
    await ctx.authorizer.authorize(credentialToRequest(request.credential), { infraEnvId: id, allowImageToken: true });
    return id;
  };
  return {
    // The authorizer remembers verified credentials (image tokens 5 s, URL tokens 5 s, ES256 keys by
    // signature) and that the InfraEnv exists (5 s), so this costs a few hashes and map lookups per
    // request while they are warm.
    async checkCredential(request: DiscoveryRequest): Promise<void> {
      const id = await authorized(request);
      if (!(await ctx.authorizer.infraEnvExists(id))) throw new NotFoundError(`infra-env ${id} not found`);
    },
    async discoveryCustomization(request: DiscoveryRequest): Promise<DiscoveryCustomization> {
      const id = await authorized(request);
      let infraEnv = await getInfraEnvOr404(ctx.repo, id);
      if (ctx.settings.authType === 'local' && !infraEnv.agentToken) {
        infraEnv = await ctx.repo.transaction(async (repo) => {
          const locked = await getInfraEnvOr404(repo, id);
          await ensureAgentToken(ctx, repo, locked);
          return locked;
        });
      }
      const extra = minimalInitrd(infraEnv);
      return {
        ignition: await discoveryIgnitionBytes(ctx, infraEnv),
        kernelArguments: (infraEnv.kernelArguments ?? []).map((k) => k.value),
        ...(extra ? { extraInitrd: extra } : {}),
        lastModified: infraEnv.updatedAt,
      };
    },
  };
}

/** Opaque image-URL tokens of this core (url-tokens.ts), for the image side's `/bytoken/` route. */
export function createUrlTokenResolver(ctx: CoreContext): UrlTokenResolver {
  return {
    async infraEnvOf(token: string): Promise<string> {
      const resolved = await ctx.urlTokens.resolve(token);
      if (!resolved) throw new UnauthorizedError('invalid, revoked or expired image URL token');
      return resolved.infraEnvId;
    },
  };
}
