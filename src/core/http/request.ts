// Request helpers for the assisted API handlers: credentials, authorization, path ids, async wrapping.
//
// Credentials come from X-Secret-Key (agent), api_key query (URL auth),
// Authorization: Bearer (user) and Image-Token / image_token (image auth).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BadRequestError } from '../../errors.js';
import type { RequestCredentials, Scope } from '../auth/authorizer.js';
import type { CoreContext } from '../context.js';
import { isUuid } from '../../uuid.js';

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

export function uuidParam(req: Request, name: string): string {
  const v = req.params[name];
  if (typeof v !== 'string' || !isUuid(v)) throw new BadRequestError(`${name} must be a UUID`);
  return v.toLowerCase();
}

export function wrap(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch(next);
  };
}

export function queryString(req: Request, name: string): string | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new BadRequestError(`query parameter ${name} must be given once`);
  return v;
}

export function queryList(req: Request, name: string): string[] | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  const items = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(','));
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** go-swagger binds `type: integer` query parameters as int64; anything outside is a bad request. */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer query parameter (decimal, optional minus sign, within int64 as upstream's binding
 * requires); undefined when absent. Values beyond ±2^53 are clamped to the nearest safe integer
 * (no row count or offset comes near). `1e3`, `1.5`, `0x10`, ` 5`, `` → 400 naming the parameter.
 */
export function queryInteger(req: Request, name: string): number | undefined {
  const v = queryString(req, name);
  if (v === undefined) return undefined;
  if (!/^-?\d{1,20}$/.test(v)) throw new BadRequestError(`query parameter ${name} must be an integer`);
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX)
    throw new BadRequestError(`query parameter ${name} is out of range (64-bit integer)`);
  return Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(n)));
}
