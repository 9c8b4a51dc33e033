// Reads and validates the identifiers image-side routes take from paths and queries:
// InfraEnv ids (UUIDs), the InfraEnv id inside a path-style token, ISO file names.
// Throws typed errors; never echoes tokens back.
import type { Request } from 'express';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { DiscoveryImageType } from '../../image-ports/ignition-source.js';
import { isUuid } from '../../uuid.js';

export function infraEnvIdParam(value: string | undefined): string {
  if (!value || !isUuid(value))
    throw new BadRequestError(`invalid image id ${JSON.stringify(value ?? '')}: expected a UUID`);
  return value.toLowerCase();
}

/**
 * The InfraEnv id carried in a JWT's payload (`infra_env_id` for local/image tokens,
 * `sub` for OCM tokens). Not verified here: whoever validates the credential does that.
 */
export function infraEnvIdFromToken(token: string): string {
  const payload = token.split('.')[1];
  if (payload) {
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        infra_env_id?: unknown;
        sub?: unknown;
      };
      const id = typeof claims.infra_env_id === 'string' ? claims.infra_env_id : claims.sub;
      if (typeof id === 'string' && isUuid(id)) return id.toLowerCase();
    } catch {
      // fall through to the error below
    }
  }
  throw new NotFoundError('the token in the URL does not name an InfraEnv');
}

export function isoTypeFromFilename(filename: string | undefined): DiscoveryImageType {
  if (filename === 'full.iso') return 'full-iso';
  if (filename === 'minimal.iso') return 'minimal-iso';
  throw new NotFoundError(`unrecognized file name ${JSON.stringify(filename ?? '')}: expected full.iso or minimal.iso`);
}

export function isoTypeFromQuery(req: Request): DiscoveryImageType {
  const type = req.query.type;
  if (type === undefined || type === '')
    throw new BadRequestError("'type' parameter required (full-iso or minimal-iso)");
  if (type === 'full-iso' || type === 'minimal-iso') return type;
  throw new BadRequestError(`invalid value ${JSON.stringify(type)} for parameter 'type' (full-iso or minimal-iso)`);
}

export function stringQuery(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestError(`parameter '${name}' must be given once`);
  return value === '' ? undefined : value;
}
