// The core's own request helpers: the credentials a request carries, its authorization against
// the core's authorizer, and its body bound against upstream's model (fields the model lacks
// dropped and logged at debug). Parameters and async wrapping are src/platform/api/request.ts.
//
// Credentials come from X-Secret-Key (agent), api_key query (URL auth),
// Authorization: Bearer (user) and Image-Token / image_token (image auth).
import type { Request } from 'express';
import type { RequestCredentials, Scope } from '../auth/authorizer.js';
import type { CoreContext } from '../context.js';
import { bindBody, type BodyDefinition } from '../validation/body-schema.js';

export function credentialsOf(req: Request): RequestCredentials {
  const q = req.query;
  const auth = req.get('authorization');
  const bearer = auth?.match(/^Bearer\s+(.+)$/i)?.[1];
  const creds: RequestCredentials = {};
  const agentKey = req.get('x-secret-key');
  if (agentKey) creds.agentKey = agentKey;
  if (typeof q.api_key === 'string' && q.api_key) creds.apiKey = q.api_key;
  if (bearer) creds.bearer = bearer.trim();
  const imageToken = req.get('image-token') ?? (typeof q.image_token === 'string' ? q.image_token : undefined);
  if (imageToken) creds.imageToken = imageToken;
  return creds;
}

export async function authorize(ctx: CoreContext, req: Request, scope: Scope): Promise<void> {
  await ctx.authorizer.authorize(credentialsOf(req), scope);
}

/** Ignored field names logged per request, and their length: enough to see a client's drift, no more. */
const MAX_LOGGED_FIELDS = 20;
const MAX_LOGGED_FIELD_LENGTH = 64;

/** The body bound against upstream's model `def`; fields the model lacks are dropped and logged at debug. */
export function bound(ctx: CoreContext, req: Request, def: BodyDefinition): Record<string, unknown> {
  const { body, ignored } = bindBody(req, def);
  if (ignored.length > 0) {
    const fields = ignored.slice(0, MAX_LOGGED_FIELDS).map((f) => f.slice(0, MAX_LOGGED_FIELD_LENGTH));
    ctx.logger.debug(
      { fields, count: ignored.length, param: def.param },
      'ignored body fields the model does not declare',
    );
  }
  return body;
}
