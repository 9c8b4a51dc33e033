// The ES256 key pair of AUTH_TYPE=local, and the JWTs it signs.
//
// The private key is generated once, stored in the database (so every replica
// signs and verifies with the same key) and mirrored under DATA_DIR/auth/ with the
// public key and an admin token for operators. Tokens carry `infra_env_id` (scoped to
// one InfraEnv, no expiry, as upstream's local auth) or `role: admin`. Never logs tokens.
import { createPublicKey } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT, exportPKCS8, exportSPKI, generateKeyPair, importPKCS8, importSPKI, jwtVerify, type CryptoKey } from 'jose';
import { UnauthorizedError } from '../../errors.js';
import type { Repository } from '../db/repository.js';

const KEY_NAME = 'local-auth-ec-private-key';
export const INFRA_ENV_CLAIM = 'infra_env_id';

export type LocalClaims = { kind: 'infra-env'; infraEnvId: string } | { kind: 'admin' };

export class LocalKeys {
  private admin: Promise<string> | undefined;

  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
  ) {}

  static async load(repo: Repository, dataDir: string): Promise<LocalKeys> {
    let pem = await repo.getServiceKey(KEY_NAME);
    if (pem === undefined) {
      const pair = await generateKeyPair('ES256', { extractable: true });
      pem = await repo.putServiceKeyIfAbsent(KEY_NAME, await exportPKCS8(pair.privateKey));
    }
    const privateKey = await importPKCS8(pem, 'ES256', { extractable: true });
    const publicPem = createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();
    const publicKey = await importSPKI(publicPem, 'ES256');
    const keys = new LocalKeys(privateKey, publicKey);
    await keys.mirror(dataDir, pem);
    return keys;
  }

  private async mirror(dataDir: string, privatePem: string): Promise<void> {
    const dir = path.join(dataDir, 'auth');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(path.join(dir, 'ec-private-key.pem'), privatePem, { mode: 0o600 });
    await writeFile(path.join(dir, 'ec-public-key.pem'), await exportSPKI(this.publicKey), { mode: 0o644 });
    await writeFile(path.join(dir, 'admin-token'), `${await this.adminToken()}\n`, { mode: 0o600 });
  }

  infraEnvToken(infraEnvId: string): Promise<string> {
    return new SignJWT({ [INFRA_ENV_CLAIM]: infraEnvId }).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(this.privateKey);
  }

  /** Signed once per process (ECDSA signatures differ each time) so the file and API agree. */
  adminToken(): Promise<string> {
    this.admin ??= new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).setSubject('admin').sign(this.privateKey);
    return this.admin;
  }

  /** Verifies signature (ES256 only) and expiry when present; throws UnauthorizedError. */
  async verify(token: string): Promise<LocalClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.publicKey, { algorithms: ['ES256'] }));
    } catch {
      throw new UnauthorizedError('invalid or expired token');
    }
    const id = payload[INFRA_ENV_CLAIM];
    if (typeof id === 'string' && id !== '') return { kind: 'infra-env', infraEnvId: id };
    if (payload.role === 'admin') return { kind: 'admin' };
    throw new UnauthorizedError('token claims are incorrectly formatted');
  }
}
