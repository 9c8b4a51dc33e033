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
