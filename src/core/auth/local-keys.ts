// The ES256 key pair of AUTH_TYPE=local, and the JWTs it signs.
//
// The private key is generated once, stored in the database (so every replica
// signs and verifies with the same key) and mirrored under DATA_DIR/auth/ with the
// public key and an admin token for operators. Tokens carry `infra_env_id` (scoped to
// one InfraEnv, no expiry, as upstream's local auth) or `role: admin`. Admin tokens also
// carry their generation (`gen`) and `jti`, checked on every use against the current
// generation (admin-generation.ts), so `bootsmith auth rotate-admin` revokes the old one at
// once; with ADMIN_TOKEN_TTL they also expire (`exp`). A token whose signature verified once is
// remembered (verified-tokens.ts: expiry and the admin generation are still checked on every use).
// Never logs tokens.
import { createPublicKey } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  SignJWT,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
  importPKCS8,
  importSPKI,
  jwtVerify,
  type CryptoKey,
} from 'jose';
import { UnauthorizedError } from '../../errors.js';
import { writeFileAtomic } from '../../fs/atomic-file.js';
import type { Repository } from '../db/repository.js';
import {
  type AdminGeneration,
  type AdminGenerations,
  databaseGenerations,
  fileGenerations,
} from './admin-generation.js';
import { VerifiedTokens } from './verified-tokens.js';

const KEY_NAME = 'local-auth-ec-private-key';
export const INFRA_ENV_CLAIM = 'infra_env_id';
/** The admin token's generation claim (the `jti` is the generation's random id). */
const GENERATION_CLAIM = 'gen';

export type LocalClaims = { kind: 'infra-env'; infraEnvId: string } | { kind: 'admin' };

export interface AdminTokenOptions {
  /** ADMIN_TOKEN_TTL: admin tokens expire this long after they are signed; undefined = never. */
  adminTokenTtlMs?: number | undefined;
  /** Whether replicas share the database (DATABASE_URL): the generation then lives there. */
  sharedDatabase?: boolean;
}

export function adminTokenFile(dataDir: string): string {
  return path.join(dataDir, 'auth', 'admin-token');
}

export class LocalKeys {
  private admin: { generation: AdminGeneration; token: Promise<string>; expiresAt: number } | undefined;
  private readonly verified = new VerifiedTokens();

  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly generations: AdminGenerations,
    private readonly adminTtlMs: number | undefined,
    private readonly dataDir: string,
  ) {}

  static async load(repo: Repository, dataDir: string, options: AdminTokenOptions = {}): Promise<LocalKeys> {
    let pem = await repo.getServiceKey(KEY_NAME);
    if (pem === undefined) {
      const pair = await generateKeyPair('ES256', { extractable: true });
      pem = await repo.putServiceKeyIfAbsent(KEY_NAME, await exportPKCS8(pair.privateKey));
    }
    const generations = options.sharedDatabase ? databaseGenerations(repo) : fileGenerations(dataDir);
    const keys = await LocalKeys.fromPem(pem, generations, options.adminTokenTtlMs, dataDir);
    await keys.mirror(pem);
    return keys;
  }

  /** The keys as mirrored in DATA_DIR/auth, for the CLI next to a service on the embedded database. */
  static async fromDataDir(dataDir: string, options: AdminTokenOptions = {}): Promise<LocalKeys> {
    const pem = await readFile(path.join(dataDir, 'auth', 'ec-private-key.pem'), 'utf8');
    return LocalKeys.fromPem(pem, fileGenerations(dataDir), options.adminTokenTtlMs, dataDir);
  }

  private static async fromPem(
    pem: string,
    generations: AdminGenerations,
    ttlMs: number | undefined,
    dataDir: string,
  ): Promise<LocalKeys> {
    const privateKey = await importPKCS8(pem, 'ES256', { extractable: true });
    const publicPem = createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();
    const publicKey = await importSPKI(publicPem, 'ES256');
    return new LocalKeys(privateKey, publicKey, generations, ttlMs, dataDir);
  }

  private async mirror(privatePem: string): Promise<void> {
    const dir = path.join(this.dataDir, 'auth');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(path.join(dir, 'ec-private-key.pem'), privatePem, { mode: 0o600 });
    await writeFile(path.join(dir, 'ec-public-key.pem'), await exportSPKI(this.publicKey), { mode: 0o644 });
    await this.writeAdminToken(await this.adminToken());
  }

  private async writeAdminToken(token: string): Promise<void> {
    await mkdir(path.dirname(adminTokenFile(this.dataDir)), { recursive: true, mode: 0o700 });
    await writeFileAtomic(adminTokenFile(this.dataDir), `${token}\n`, 0o600);
  }

  infraEnvToken(infraEnvId: string): Promise<string> {
    return new SignJWT({ [INFRA_ENV_CLAIM]: infraEnvId })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .sign(this.privateKey);
  }

  private signAdmin(g: AdminGeneration): { token: Promise<string>; expiresAt: number } {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ role: 'admin', [GENERATION_CLAIM]: g.generation })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setSubject('admin')
      .setJti(g.jti)
      .setIssuedAt(now);
    const expiresAt = this.adminTtlMs === undefined ? Infinity : now * 1000 + this.adminTtlMs;
    if (this.adminTtlMs !== undefined) jwt.setExpirationTime(Math.floor(expiresAt / 1000));
    return { token: jwt.sign(this.privateKey), expiresAt };
  }

  /**
   * A token of the current admin generation. Signed once per generation and process (ECDSA
   * signatures differ each time, so the file and API agree), again when it is about to expire.
   */
  async adminToken(): Promise<string> {
    const g = await this.generations.current();
    const cached = this.admin;
    if (
      cached &&
      cached.generation.generation === g.generation &&
      cached.generation.jti === g.jti &&
      cached.expiresAt - Date.now() > 60_000
    ) {
      return cached.token;
    }
    this.admin = { generation: g, ...this.signAdmin(g) };
    return this.admin.token;
  }

  /** Makes a new admin generation current, writes its token to DATA_DIR/auth/admin-token; the old one stops working. */
  async rotateAdmin(): Promise<{ generation: number; file: string; expiresAt: Date | undefined }> {
    const g = await this.generations.advance();
    const signed = this.signAdmin(g);
    this.admin = { generation: g, ...signed };
    await this.writeAdminToken(await signed.token);
    return {
      generation: g.generation,
      file: adminTokenFile(this.dataDir),
      expiresAt: Number.isFinite(signed.expiresAt) ? new Date(signed.expiresAt) : undefined,
    };
  }

  /**
   * Verifies signature (ES256 only; remembered once verified), expiry when present and an admin
   * token's generation (on every use); throws UnauthorizedError.
   */
  async verify(token: string): Promise<LocalClaims> {
    let payload = this.verified.get(token)?.payload;
    if (payload === undefined) {
      try {
        ({ payload } = await jwtVerify(token, this.publicKey, { algorithms: ['ES256'] }));
      } catch {
        throw new UnauthorizedError('invalid or expired token');
      }
      this.verified.remember(token, payload);
    }
    const id = payload[INFRA_ENV_CLAIM];
    if (typeof id === 'string' && id !== '') return { kind: 'infra-env', infraEnvId: id };
    if (payload.role === 'admin') {
      const generation = payload[GENERATION_CLAIM];
      const jti = payload.jti;
      if (
        typeof generation !== 'number' ||
        typeof jti !== 'string' ||
        !(await this.generations.isCurrent({ generation, jti }))
      ) {
        throw new UnauthorizedError('the admin token has been rotated');
      }
      return { kind: 'admin' };
    }
    throw new UnauthorizedError('token claims are incorrectly formatted');
  }
}
