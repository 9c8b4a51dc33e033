// Per-InfraEnv image tokens: HS256 JWTs `{sub: <infra_env_id>, exp}` signed with the InfraEnv's own key.
//
// Used in `Image-Token` headers, `image_token` query parameters and `/bytoken/` URLs.
// regenerate-signing-key replaces the key, which revokes every token issued before.
// A token only verifies against the key of the InfraEnv named in its `sub`. Verified tokens are
// remembered by the authorizer (authorizer.ts, verified-tokens.ts), not here.
import { randomBytes } from 'node:crypto';
import { type JWTPayload, SignJWT, jwtVerify } from 'jose';
import { UnauthorizedError } from '../../errors.js';

export const DEFAULT_IMAGE_TOKEN_TTL_MS = 4 * 60 * 60 * 1000; // upstream IMAGE_EXPIRATION_TIME default 4h

export function newImageTokenKey(): string {
  return randomBytes(32).toString('base64url');
}

export async function issueImageToken(
  infraEnvId: string,
  key: string,
  ttlMs = DEFAULT_IMAGE_TOKEN_TTL_MS,
  now = Date.now(),
): Promise<{ token: string; expiresAt: Date }> {
  const exp = Math.floor((now + ttlMs) / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(infraEnvId)
    .setExpirationTime(exp)
    .sign(Buffer.from(key, 'base64url'));
  return { token, expiresAt: new Date(exp * 1000) };
}

/** The `sub` claim without verifying: tells which InfraEnv's key to verify with. */
export function unverifiedSubject(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof payload.sub === 'string' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

/** The verified claims (`sub` is `infraEnvId`, `exp` present), or UnauthorizedError. */
export async function verifyImageToken(token: string, infraEnvId: string, key: string): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, Buffer.from(key, 'base64url'), {
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'sub'],
    });
    if (payload.sub !== infraEnvId) throw new Error('subject mismatch');
    return payload;
  } catch {
    throw new UnauthorizedError('invalid or expired image token');
  }
}
