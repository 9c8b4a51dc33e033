// Request helpers of the API handlers (the core's and the BMC wing's): path and query parameters
// bound as upstream's go-swagger binds them (uuid, boolean, integer, string, list), and async
// handlers wrapped so a rejection reaches the error handler.
// Does NOT: authenticate or authorize (each wing does, src/core/http/request.ts for the core), or
// bind bodies.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BadRequestError } from '../../errors.js';
import { isUuid } from '../../uuid.js';
import { frameworkErrors } from './framework-error.js';

/** A `format: uuid` path parameter; anything else is go-openapi's 601 (422), as upstream binds it. */
export function uuidParam(req: Request, name: string): string {
  const v = req.params[name];
  if (typeof v !== 'string' || !isUuid(v)) throw frameworkErrors.invalidType(name, 'path', 'strfmt.UUID', String(v));
  return v.toLowerCase();
}

/** A `format: uuid` query parameter, undefined when absent; a malformed one is 601 (422). */
export function queryUuid(req: Request, name: string): string | undefined {
  const v = queryString(req, name);
  if (v === undefined) return undefined;
  if (!isUuid(v)) throw frameworkErrors.invalidType(name, 'query', 'strfmt.UUID', v);
  return v.toLowerCase();
}

/** swag.ConvertBool's true spellings (go-openapi/swag): case-insensitive; every other value is false, never an error. */
const TRUE_WORDS = ['true', '1', 'yes', 'ok', 'y', 'on', 'selected', 'checked', 't', 'enabled'];

/** A `type: boolean` query parameter as go-swagger binds it; undefined when absent. */
export function queryBoolean(req: Request, name: string): boolean | undefined {
  const v = queryString(req, name);
  if (v === undefined) return undefined;
  return TRUE_WORDS.includes(v.toLowerCase());
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
 * (no row count or offset comes near). `1e3`, `1.5`, `0x10`, ` 5`, `` → go-openapi's 601 (422)
 * naming the parameter, as swag.ConvertInt64 failing does upstream.
 */
export function queryInteger(req: Request, name: string): number | undefined {
  const v = queryString(req, name);
  if (v === undefined) return undefined;
  if (!/^-?\d{1,20}$/.test(v)) throw frameworkErrors.invalidType(name, 'query', 'int64', v);
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX) throw frameworkErrors.invalidType(name, 'query', 'int64', v);
  return Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(n)));
}
