// How the image side learns which InfraEnv an opaque `/bytoken/<token>/…` URL opens, and the two
// words every side shares about such tokens: which token is one (isJwtShaped) and how it is named
// without being kept (hashUrlToken).
//
// Does: declare the seam. The in-process core implements it (src/core/in-process-ignition-source.ts,
// backed by src/core/auth/url-tokens.ts); an image side fronting a core asks it over HTTP
// (src/image-ports/remote/remote-url-tokens.ts); a real assisted-service issues JWTs only, so there
// an opaque token is a 401.
// Does NOT: authorize the request (the IgnitionSource still checks the credential) or see JWTs.
import { createHash } from 'node:crypto';

/** A short URL token's random part: 24 bytes, 192 bits (the issue asks ≥ 128) in 32 base64url characters (≤ 43). */
export const URL_TOKEN_BYTES = 24;
export const URL_TOKEN_LENGTH = Math.ceil((URL_TOKEN_BYTES * 4) / 3);

export interface UrlTokenResolver {
  /** The InfraEnv id the token opens now; throws UnauthorizedError when unknown, revoked or expired. */
  infraEnvOf(token: string): Promise<string>;
}

/** A JWT has exactly two dots; anything else in a token position is an opaque URL token. */
export function isJwtShaped(token: string): boolean {
  return token.split('.').length === 3;
}

/**
 * The name of an opaque URL token wherever it is stored or reported: sha256, base64url. The core
 * stores only this (image_url_tokens, a BMC job's token), and the image face reports reads by it.
 */
export function hashUrlToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}
