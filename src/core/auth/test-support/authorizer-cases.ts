// The authorizer's table (src/core/auth/authorizer.test.ts runs it with an in-memory repository,
// authorizer.postgres.test.ts runs the same rows on the real repository, which is what keeps the
// in-memory one honest): a world of two InfraEnvs with real keys and tokens of every kind, and
// rows of credentials × scope → the verdict (open, or the 401/403 error and its message).
//
// Does: build the world through the Repository interface (insertInfraEnv, insertUrlTokens) and real
// LocalKeys (an ES256 key in a temporary DATA_DIR, admin generations in its file), UrlTokens and
// image tokens. Does NOT: start a database (the callers pass a repository).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';

import { statusForError } from '../../../error-status.js';
import type { Repository } from '../../db/repository.js';
import type { InfraEnvRecord } from '../../model.js';
import { Authorizer, type AuthType, type RequestCredentials, type Scope } from '../authorizer.js';
import { issueImageToken, newImageTokenKey } from '../image-tokens.js';
import { LocalKeys } from '../local-keys.js';
import { hashUrlToken } from '../../../image-ports/url-token-resolver.js';
import { newUrlToken, UrlTokens } from '../url-tokens.js';

export const INFRA_ENV_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
export const INFRA_ENV_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
/** An InfraEnv id the repository does not hold. */
export const INFRA_ENV_GONE = 'cccccccc-0000-4000-8000-00000000000c';

const NOW = new Date('2026-03-01T10:00:00Z');
const HOUR = 60 * 60 * 1000;

/** The repository methods the authorizer and UrlTokens.resolve use, and those that fill the world. */
export type AuthorizerRepository = Pick<
  Repository,
  'getInfraEnv' | 'getUrlToken' | 'insertInfraEnv' | 'insertUrlTokens'
>;

/** Every credential the rows use, by name. */
export interface Tokens {
  admin: string;
  /** An admin token of the generation before the current one (rotated away). */
  rotatedAdmin: string;
  agentA: string;
  agentB: string;
  /** An InfraEnv token for A signed by another key pair. */
  foreignA: string;
  imageA: string;
  expiredImageA: string;
  /** An image token naming A, signed with B's key. */
  imageASignedByB: string;
  imageGone: string;
  urlA: string;
  expiredUrlA: string;
  /** Well-formed, never stored. */
  unknownUrl: string;
  garbage: string;
}

export interface World {
  tokens: Tokens;
  authorizer(type: AuthType): Authorizer;
  remove(): Promise<void>;
}

function infraEnv(id: string, imageTokenKey: string): InfraEnvRecord {
  return {
    id,
    name: `auth-${id.slice(0, 4)}`,
    clusterId: null,
    openshiftVersion: '4.16',
    cpuArchitecture: 'x86_64',
    imageType: 'full-iso',
    pullSecret: '{"auths":{}}',
    sshAuthorizedKey: '',
    proxy: null,
    additionalNtpSources: '',
    staticNetworkConfig: null,
    ignitionConfigOverride: '',
    kernelArguments: null,
    additionalTrustBundle: '',
    imageTokenKey,
    agentToken: null,
    networkDiscoveryDelaySeconds: null,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

async function keysIn(dataDir: string): Promise<LocalKeys> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  await mkdir(path.join(dataDir, 'auth'), { recursive: true });
  await writeFile(path.join(dataDir, 'auth', 'ec-private-key.pem'), await exportPKCS8(pair.privateKey));
  return LocalKeys.fromDataDir(dataDir);
}

/** Two InfraEnvs in `repo`, keys in a temporary DATA_DIR, and one token of every kind. */
export async function buildWorld(repo: AuthorizerRepository): Promise<World> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-authorizer-'));
  const foreignDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-authorizer-foreign-'));
  const keys = await keysIn(dataDir);
  const foreign = await keysIn(foreignDir);
  const keyA = newImageTokenKey();
  const keyB = newImageTokenKey();
  await repo.insertInfraEnv(infraEnv(INFRA_ENV_A, keyA));
  await repo.insertInfraEnv(infraEnv(INFRA_ENV_B, keyB));

  const rotatedAdmin = await keys.adminToken();
  await keys.rotateAdmin();
  const urlA = newUrlToken();
  const expiredUrlA = newUrlToken();
  await repo.insertUrlTokens([
    {
      tokenHash: hashUrlToken(urlA),
      infraEnvId: INFRA_ENV_A,
      standing: false,
      expiresAt: new Date(NOW.getTime() + HOUR),
      createdAt: NOW,
    },
    {
      tokenHash: hashUrlToken(expiredUrlA),
      infraEnvId: INFRA_ENV_A,
      standing: false,
      expiresAt: new Date(NOW.getTime() - 1),
      createdAt: NOW,
    },
  ]);
  const tokens: Tokens = {
    admin: await keys.adminToken(),
    rotatedAdmin,
    agentA: await keys.infraEnvToken(INFRA_ENV_A),
    agentB: await keys.infraEnvToken(INFRA_ENV_B),
    foreignA: await foreign.infraEnvToken(INFRA_ENV_A),
    imageA: (await issueImageToken(INFRA_ENV_A, keyA)).token,
    expiredImageA: (await issueImageToken(INFRA_ENV_A, keyA, HOUR, Date.now() - 2 * HOUR)).token,
    imageASignedByB: (await issueImageToken(INFRA_ENV_A, keyB)).token,
    imageGone: (await issueImageToken(INFRA_ENV_GONE, keyA)).token,
    urlA,
    expiredUrlA,
    unknownUrl: newUrlToken(),
    garbage: 'not.a.token',
  };
  const urlTokens = new UrlTokens(repo as Repository, 4 * HOUR, () => NOW);
  return {
    tokens,
    authorizer: (type) => new Authorizer(type, type === 'local' ? keys : undefined, repo as Repository, urlTokens),
    async remove() {
      await rm(dataDir, { recursive: true, force: true });
      await rm(foreignDir, { recursive: true, force: true });
    },
  };
}

/** What the authorizer answered: open, or the error's status and message. */
export type Verdict = 'open' | { status: number; message: string };

export async function verdictOf(authorizer: Authorizer, creds: RequestCredentials, scope: Scope): Promise<Verdict> {
  try {
    await authorizer.authorize(creds, scope);
    return 'open';
  } catch (err) {
    return { status: statusForError(err), message: (err as Error).message };
  }
}

type Credential = keyof RequestCredentials;

export interface AuthorizerRow {
  name: string;
  authType?: AuthType;
  /** Channel → the name of a token in Tokens. */
  credentials: Partial<Record<Credential, keyof Tokens>>;
  scope: Scope;
  verdict: Verdict;
}

const MISSING = { status: 401, message: 'missing credentials' };
const INVALID = { status: 401, message: 'invalid or expired credentials' };
const OTHER_INFRA_ENV = { status: 403, message: 'the token does not belong to this infra-env' };
const ADMIN_ONLY = { status: 403, message: 'this operation needs an admin token' };
const NOT_FOR_IMAGE_TOKENS = { status: 403, message: 'image tokens do not open this operation' };

const A: Scope = { infraEnvId: INFRA_ENV_A };
const A_IMAGE: Scope = { infraEnvId: INFRA_ENV_A, allowImageToken: true };
const B_IMAGE: Scope = { infraEnvId: INFRA_ENV_B, allowImageToken: true };
const GONE_IMAGE: Scope = { infraEnvId: INFRA_ENV_GONE, allowImageToken: true };
const ADMIN: Scope = {};

export const AUTHORIZER_ROWS: AuthorizerRow[] = [
  {
    name: 'AUTH_TYPE=none opens everything without credentials',
    authType: 'none',
    credentials: {},
    scope: ADMIN,
    verdict: 'open',
  },
  {
    name: 'AUTH_TYPE=none ignores a garbage token',
    authType: 'none',
    credentials: { bearer: 'garbage' },
    scope: A,
    verdict: 'open',
  },
  { name: 'no credentials', credentials: {}, scope: A, verdict: MISSING },
  { name: 'no credentials, admin-only operation', credentials: {}, scope: ADMIN, verdict: MISSING },
  {
    name: 'admin bearer opens an admin-only operation',
    credentials: { bearer: 'admin' },
    scope: ADMIN,
    verdict: 'open',
  },
  { name: 'admin token as api_key opens an InfraEnv', credentials: { apiKey: 'admin' }, scope: A, verdict: 'open' },
  { name: 'admin token as agent key opens an InfraEnv', credentials: { agentKey: 'admin' }, scope: A, verdict: 'open' },
  { name: 'a rotated admin token', credentials: { bearer: 'rotatedAdmin' }, scope: ADMIN, verdict: INVALID },
  { name: 'agent key of the InfraEnv', credentials: { agentKey: 'agentA' }, scope: A, verdict: 'open' },
  { name: 'api_key of the InfraEnv', credentials: { apiKey: 'agentA' }, scope: A, verdict: 'open' },
  { name: 'agent key of another InfraEnv', credentials: { agentKey: 'agentB' }, scope: A, verdict: OTHER_INFRA_ENV },
  {
    name: 'InfraEnv token on an admin-only operation',
    credentials: { bearer: 'agentA' },
    scope: ADMIN,
    verdict: ADMIN_ONLY,
  },
  {
    name: 'a wrong and a right token: the right one opens',
    credentials: { agentKey: 'agentB', bearer: 'agentA' },
    scope: A,
    verdict: 'open',
  },
  { name: 'a token signed by another key', credentials: { agentKey: 'foreignA' }, scope: A, verdict: INVALID },
  { name: 'a garbage bearer', credentials: { bearer: 'garbage' }, scope: A, verdict: INVALID },
  {
    name: 'garbage and another InfraEnv’s token: 403, not 401',
    credentials: { bearer: 'garbage', apiKey: 'agentB' },
    scope: A,
    verdict: OTHER_INFRA_ENV,
  },
  {
    name: 'image token where image tokens are allowed',
    credentials: { imageToken: 'imageA' },
    scope: A_IMAGE,
    verdict: 'open',
  },
  {
    name: 'image token where they are not',
    credentials: { imageToken: 'imageA' },
    scope: A,
    verdict: NOT_FOR_IMAGE_TOKENS,
  },
  {
    name: 'image token on an admin-only operation',
    credentials: { imageToken: 'imageA' },
    scope: ADMIN,
    verdict: INVALID,
  },
  { name: 'image token of another InfraEnv', credentials: { imageToken: 'imageA' }, scope: B_IMAGE, verdict: INVALID },
  { name: 'an expired image token', credentials: { imageToken: 'expiredImageA' }, scope: A_IMAGE, verdict: INVALID },
  {
    name: 'an image token signed with another InfraEnv’s key',
    credentials: { imageToken: 'imageASignedByB' },
    scope: A_IMAGE,
    verdict: INVALID,
  },
  {
    name: 'an image token of an InfraEnv that does not exist',
    credentials: { imageToken: 'imageGone' },
    scope: GONE_IMAGE,
    verdict: INVALID,
  },
  { name: 'an image-URL token of the InfraEnv', credentials: { imageToken: 'urlA' }, scope: A_IMAGE, verdict: 'open' },
  {
    name: 'an image-URL token of another InfraEnv',
    credentials: { imageToken: 'urlA' },
    scope: B_IMAGE,
    verdict: INVALID,
  },
  { name: 'an expired image-URL token', credentials: { imageToken: 'expiredUrlA' }, scope: A_IMAGE, verdict: INVALID },
  {
    name: 'an image-URL token never issued',
    credentials: { imageToken: 'unknownUrl' },
    scope: A_IMAGE,
    verdict: INVALID,
  },
  {
    name: 'an image-URL token where image tokens are not allowed',
    credentials: { imageToken: 'urlA' },
    scope: A,
    verdict: NOT_FOR_IMAGE_TOKENS,
  },
  {
    name: 'another InfraEnv’s agent key beside a good image token',
    credentials: { agentKey: 'agentB', imageToken: 'imageA' },
    scope: A_IMAGE,
    verdict: 'open',
  },
  {
    name: 'the first 403 is the one reported',
    credentials: { agentKey: 'agentB', imageToken: 'imageA' },
    scope: A,
    verdict: OTHER_INFRA_ENV,
  },
];

/** The credentials of a row, with the world's tokens put in. */
export function credentialsOf(row: AuthorizerRow, tokens: Tokens): RequestCredentials {
  const out: RequestCredentials = {};
  for (const [channel, name] of Object.entries(row.credentials) as [Credential, keyof Tokens][]) {
    out[channel] = tokens[name];
  }
  return out;
}
