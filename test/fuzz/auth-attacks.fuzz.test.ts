// Fault category "auth-attacks": forged, tampered, expired, cross-InfraEnv and malformed
// credentials against the all-in-one service with AUTH_TYPE=local, on every place a credential
// is read: the assisted API (X-Secret-Key, api_key, Bearer) and the image side (/byapikey/…,
// /bytoken/…, /images/{id}?api_key=, Image-Token).
//
// Each case pairs a forged credential with a target it must not open (InfraEnv B, or the
// admin-only InfraEnv list/create). Wrong acceptance = any 2xx; crash = a 5xx or a dropped
// connection. The legitimate credentials are checked first, so a service that refuses
// everything would fail the test rather than score zero wrong acceptances.
import { createPublicKey, generateKeyPairSync, randomBytes, sign as cryptoSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service.js';
import { PULL_SECRET } from '../../src/core/test-support/harness.js';
import { type InProcessService, startInProcessService } from './support/in-process-service.js';
import { fuzzParameters } from './support/budget.js';
import { recordFigures } from './support/figures.js';

const API = '/api/assisted-install/v2';
const VERSION = '4.17';

const b64url = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWT with any header and payload, signed by `signature` (or unsigned). */
function rawJwt(header: Record<string, unknown>, payload: Record<string, unknown>, signature = ''): string {
  return `${b64url(header)}.${b64url(payload)}.${signature}`;
}

interface Fixture {
  service: RunningService;
  admin: string;
  a: { id: string; apiKey: string; imageToken: string; shortToken: string };
  b: { id: string };
  privatePem: string;
  publicPem: string;
}

type Credential = {
  via: 'x-secret-key' | 'bearer' | 'api_key' | 'byapikey' | 'bytoken' | 'image-token' | 'image_token';
  token: string;
};
type Target = 'infra-env-b' | 'infra-env-list' | 'infra-env-create' | 'iso-b';

async function request(f: Fixture, target: Target, cred: Credential): Promise<number> {
  const base = f.service.url;
  const headers: Record<string, string> = {};
  let url: string;
  let method = 'GET';
  let body: string | undefined;
  const query = (name: string) => `${name}=${encodeURIComponent(cred.token)}`;
  if (target === 'iso-b') {
    const b = f.b.id;
    if (cred.via === 'byapikey') url = `${base}/byapikey/${encodeURIComponent(cred.token)}/${VERSION}/x86_64/full.iso`;
    else if (cred.via === 'bytoken')
      url = `${base}/bytoken/${encodeURIComponent(cred.token)}/${VERSION}/x86_64/full.iso`;
    else if (cred.via === 'api_key' || cred.via === 'image_token')
      url = `${base}/images/${b}?version=${VERSION}&type=full-iso&${query(cred.via)}`;
    else {
      url = `${base}/images/${b}?version=${VERSION}&type=full-iso`;
      if (cred.via === 'image-token') headers['image-token'] = cred.token;
      else if (cred.via === 'bearer') headers.authorization = `Bearer ${cred.token}`;
      else headers['x-secret-key'] = cred.token;
    }
    method = 'HEAD';
  } else {
    url = target === 'infra-env-b' ? `${base}${API}/infra-envs/${f.b.id}` : `${base}${API}/infra-envs`;
    if (target === 'infra-env-create') {
      method = 'POST';
      headers['content-type'] = 'application/json';
      body = JSON.stringify({ name: 'forged', pull_secret: PULL_SECRET, openshift_version: VERSION });
    }
    if (cred.via === 'api_key' || cred.via === 'image_token' || cred.via === 'byapikey' || cred.via === 'bytoken') {
      url += `${url.includes('?') ? '&' : '?'}${query('api_key')}`;
    } else if (cred.via === 'bearer') headers.authorization = `Bearer ${cred.token}`;
    else if (cred.via === 'image-token') headers['image-token'] = cred.token;
    else headers['x-secret-key'] = cred.token;
  }
  try {
    const res = await fetch(url, { method, headers, ...(body ? { body } : {}), signal: AbortSignal.timeout(15_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return -1; // connection dropped or timed out: counted as a crash
  }
}

/** Forged credentials, built from the real ones and the keys an attacker could know (the public key). */
async function forgeries(f: Fixture): Promise<Array<{ name: string; token: string }>> {
  const now = Math.floor(Date.now() / 1000);
  const privateKey = await importPKCS8(f.privatePem, 'ES256');
  const { privateKey: strangerKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const strangerPem = strangerKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const stranger = await importPKCS8(strangerPem, 'ES256');
  const [h, p, s] = f.a.apiKey.split('.') as [string, string, string];
  const payloadA = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  const payloadB = { ...payloadA, infra_env_id: f.b.id };
  const hsWithPublicKey = async (payload: Record<string, unknown>) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(Buffer.from(f.publicPem));
  const es256 = (key: typeof privateKey, payload: Record<string, unknown>) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(key);
  const flipped = (sig: string) => {
    const bytes = Buffer.from(sig, 'base64url');
    bytes[bytes.length >> 1]! ^= 0x01;
    return bytes.toString('base64url');
  };
  // An ES256 signature over B's payload made with a *raw* (non-DER) P-1363 layout from the stranger key.
  const rawSig = cryptoSign('sha256', Buffer.from(`${h}.${b64url(payloadB)}`), {
    key: strangerKey,
    dsaEncoding: 'ieee-p1363',
  }).toString('base64url');
  return [
    { name: 'alg-none-b', token: rawJwt({ alg: 'none', typ: 'JWT' }, payloadB) },
    { name: 'alg-none-admin', token: rawJwt({ alg: 'none', typ: 'JWT' }, { sub: 'admin', kind: 'admin' }) },
    { name: 'alg-None-b', token: rawJwt({ alg: 'None' }, payloadB, 'x') },
    { name: 'hs256-public-key-b', token: await hsWithPublicKey(payloadB) },
    { name: 'hs256-public-key-admin', token: await hsWithPublicKey({ sub: 'admin', admin: true }) },
    { name: 'tampered-payload-b', token: `${h}.${b64url(payloadB)}.${s}` },
    { name: 'flipped-signature-a', token: `${h}.${p}.${flipped(s)}` },
    { name: 'stranger-key-b', token: await es256(stranger, payloadB) },
    { name: 'stranger-raw-sig-b', token: `${h}.${b64url(payloadB)}.${rawSig}` },
    { name: 'expired-real-key-b', token: await es256(privateKey, { ...payloadB, exp: now - 60, iat: now - 3600 }) },
    { name: 'real-key-a-used-on-b', token: f.a.apiKey },
    { name: 'image-token-a-used-on-b', token: f.a.imageToken },
    {
      name: 'image-token-a-resubject-b',
      token: (() => {
        const [ih, ip, is] = f.a.imageToken.split('.') as [string, string, string];
        const pl = JSON.parse(Buffer.from(ip, 'base64url').toString()) as Record<string, unknown>;
        return `${ih}.${b64url({ ...pl, sub: f.b.id })}.${is}`;
      })(),
    },
    // short opaque image-URL tokens (src/core/auth/url-tokens.ts)
    { name: 'short-token-a-used-on-b', token: f.a.shortToken },
    {
      name: 'short-token-a-flipped',
      token: `${f.a.shortToken.slice(0, -1)}${f.a.shortToken.endsWith('A') ? 'B' : 'A'}`,
    },
    { name: 'short-token-random', token: randomBytes(24).toString('base64url') },
    { name: 'short-token-a-prefix', token: f.a.shortToken.slice(0, 16) },
    { name: 'two-part', token: `${h}.${p}` },
    { name: 'four-part', token: `${f.a.apiKey}.${s}` },
    { name: 'empty-signature', token: `${h}.${p}.` },
    { name: 'not-base64', token: '!!!.@@@.###' },
    { name: 'json-header-injection', token: `${b64url('{"alg":"ES256","crit":["x"],"x":1}')}.${p}.${s}` },
    {
      name: 'jwk-embedded-header',
      token: `${b64url({ alg: 'ES256', jwk: createPublicKey(strangerPem).export({ format: 'jwk' }) })}.${b64url(payloadB)}.${rawSig}`,
    },
  ];
}

/** Channels whose URL carries the credential instead of an InfraEnv id. */
const PATH_STYLE = new Set<Credential['via']>(['byapikey', 'bytoken']);
/** Forgeries that are in fact A's valid credentials, aimed at B through channels that name B. */
const GENUINE_FOR_A = new Set(['real-key-a-used-on-b', 'image-token-a-used-on-b', 'short-token-a-used-on-b']);

const VIAS: Credential['via'][] = [
  'x-secret-key',
  'bearer',
  'api_key',
  'byapikey',
  'bytoken',
  'image-token',
  'image_token',
];
const TARGETS: Target[] = ['infra-env-b', 'infra-env-list', 'infra-env-create', 'iso-b'];

describe('auth-attacks', () => {
  let f: Fixture;
  let running: InProcessService;

  beforeAll(async () => {
    running = await startInProcessService({ AUTH_TYPE: 'local' });
    const { service, dataDir } = running;
    const admin = readFileSync(path.join(dataDir, 'auth', 'admin-token'), 'utf8').trim();
    const create = async () => {
      const res = await fetch(`${service.url}${API}/infra-envs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ name: 'victim', pull_secret: PULL_SECRET, openshift_version: VERSION }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; download_url: string };
    };
    const a = await create();
    const b = await create();
    // download_url carries a short opaque token now; A's API key (a JWT) is in its iPXE script.
    const script = await (
      await fetch(`${service.url}${API}/infra-envs/${a.id}/downloads/files?file_name=ipxe-script`, {
        headers: { authorization: `Bearer ${admin}` },
      })
    ).text();
    const apiKey = decodeURIComponent(/[?&]api_key=([^&\s]+)/.exec(script)![1]!);
    const presigned = await fetch(
      `${service.url}${API}/infra-envs/${a.id}/downloads/files-presigned?file_name=discovery.ign`,
      {
        headers: { authorization: `Bearer ${admin}` },
      },
    );
    const presignedUrl = ((await presigned.json()) as { url: string }).url;
    const imageToken =
      new URL(presignedUrl).searchParams.get('image_token') ?? new URL(presignedUrl).searchParams.get('api_key')!;
    const imageUrl = await fetch(`${service.url}${API}/infra-envs/${a.id}/downloads/image-url`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const shortToken = /\/bytoken\/([^/]+)\//.exec(((await imageUrl.json()) as { url: string }).url)![1]!;
    f = {
      service,
      admin,
      a: { id: a.id, apiKey, imageToken, shortToken },
      b: { id: b.id },
      privatePem: readFileSync(path.join(dataDir, 'auth', 'ec-private-key.pem'), 'utf8'),
      publicPem: readFileSync(path.join(dataDir, 'auth', 'ec-public-key.pem'), 'utf8'),
    };
  });
  afterAll(() => running?.close());

  it('opens nothing with a forged, tampered, expired or foreign credential, on the API and the image side', async () => {
    // The real credentials work where they should (a service refusing everything fails here).
    expect(await request(f, 'infra-env-list', { via: 'bearer', token: f.admin })).toBe(200);
    expect(await request(f, 'iso-b', { via: 'bearer', token: f.admin })).toBe(200);
    const ownIso = await fetch(`${f.service.url}/byapikey/${f.a.apiKey}/${VERSION}/x86_64/full.iso`, {
      method: 'HEAD',
    });
    expect(ownIso.status).toBe(200);

    const forged = await forgeries(f);
    let cases = 0;
    let crashes = 0;
    let wrong = 0;
    const accepted: string[] = [];
    const statuses = new Map<number, number>();
    const property = fc.asyncProperty(
      fc.constantFrom(...forged),
      fc.constantFrom(...VIAS),
      fc.constantFrom(...TARGETS),
      fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
      async (forgery, via, target, suffix) => {
        // A path-style URL names no InfraEnv: /byapikey/<A's key>/… is A's own ISO, rightly served.
        // A's genuine credentials are attacks there only once altered (the suffix).
        if (PATH_STYLE.has(via) && target === 'iso-b' && GENUINE_FOR_A.has(forgery.name) && suffix === undefined)
          return true;
        const token = suffix === undefined ? forgery.token : `${forgery.token}${suffix}`;
        const status = await request(f, target, { via, token });
        cases++;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status < 0 || status >= 500) crashes++;
        else if (status >= 200 && status < 300) {
          wrong++;
          accepted.push(`${forgery.name} via ${via} on ${target} → ${status}`);
        }
        return true;
      },
    );
    await fc.assert(property, fuzzParameters(500));
    // Random garbage tokens through every channel, too.
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 0, maxLength: 300 }),
        fc.constantFrom(...VIAS),
        fc.constantFrom(...TARGETS),
        async (token, via, target) => {
          const status = await request(f, target, { via, token: token || randomBytes(4).toString('hex') });
          cases++;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status < 0 || status >= 500) crashes++;
          else if (status >= 200 && status < 300) {
            wrong++;
            accepted.push(`garbage ${JSON.stringify(token)} via ${via} on ${target} → ${status}`);
          }
          return true;
        },
      ),
      fuzzParameters(200),
    );
    recordFigures({
      category: 'auth-attacks',
      cases,
      crashes,
      hangs: 0,
      wrongAcceptances: wrong,
      dataLost: 0,
      notes: `${forged.length} forgeries (alg none, HS256 with the public key, tampered payloads and signatures, stranger keys, expired, cross-InfraEnv, short opaque tokens altered or foreign) × ${VIAS.length} channels × ${TARGETS.length} targets, plus garbage; statuses ${[...statuses].map(([s, n]) => `${s}:${n}`).join(' ')}`,
    });
    expect(accepted).toEqual([]);
    expect(crashes).toBe(0);
  });
});
