// Short opaque image-URL tokens (url-tokens.ts) through the assisted API and the image routes of
// one all-in-one service on real PostgreSQL, with the core's clock injected: URL length for a
// 30-character host, expiry, revocation by regenerate-signing-key and delete, cross-InfraEnv
// refusal, hashed storage (read from the table), the per-InfraEnv bound, a BMC-style
// HEAD + Range fetch, JWTs still working, and no token in any log line.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config.js';
import { DEMO_IMAGE_PATH } from '../../package-root.js';
import { createLogger } from '../../logger.js';
import { type RunningService, startService } from '../../service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../test/support/all-in-one.js';
import { isJwtShaped } from '../../image-ports/url-token-resolver.js';
import { URL_TOKEN_LENGTH } from '../../image-ports/url-token-resolver.js';
import { MAX_LIVE_TOKENS_PER_INFRA_ENV, standingUrlToken } from './url-tokens.js';

const HOST = 'bmc-images.dc1.example-corp.io'; // 30 characters
const BASE = `https://${HOST}:8443`;
const HOUR = 3_600_000;

describe('short image-URL tokens (AUTH_TYPE=local)', () => {
  let s: AllInOne;

  beforeAll(async () => {
    s = await startAllInOne({ AUTH_TYPE: 'local', IMAGE_SERVICE_BASE_URL: BASE });
  }, 60_000);
  afterAll(() => s?.close());

  const create = async (): Promise<{ id: string; download_url: string; expires_at: string }> => {
    const res = await s.call('POST', `${API}/infra-envs`, {
      name: 'rack',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; download_url: string; expires_at: string };
  };
  const imageUrl = async (id: string): Promise<{ url: string; expires_at: string }> => {
    const res = await s.call('GET', `${API}/infra-envs/${id}/downloads/image-url`);
    expect(res.status).toBe(200);
    return (await res.json()) as { url: string; expires_at: string };
  };
  const tokenOf = (url: string): string => {
    const m = /\/bytoken\/([^/]+)\/4\.17\/x86_64\/full\.iso$/.exec(new URL(url).pathname);
    expect(m, url).not.toBeNull();
    return m![1]!;
  };
  /** The same path on the service's real address (the handed-out base names a BMC-facing host). */
  const local = (url: string): string => s.service.url + new URL(url).pathname;
  const head = async (url: string, headers: Record<string, string> = {}) =>
    (await fetch(local(url), { method: 'HEAD', headers })).status;

  it('hands out download_url and image-url of at most 160 characters for a 30-character host', async () => {
    expect(HOST).toHaveLength(30);
    const a = await create();
    expect(a.download_url.startsWith(`${BASE}/bytoken/`)).toBe(true);
    expect(a.download_url.length).toBeLessThanOrEqual(160);
    const presigned = await imageUrl(a.id);
    expect(presigned.url.length).toBeLessThanOrEqual(160);
    for (const token of [tokenOf(a.download_url), tokenOf(presigned.url)]) {
      expect(token).toHaveLength(URL_TOKEN_LENGTH);
      expect(token.length).toBeLessThanOrEqual(43);
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(isJwtShaped(token)).toBe(false);
      expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
    // image-url: default TTL 4 h from the core's clock; each call mints a new token
    expect(new Date(presigned.expires_at).getTime()).toBe(s.clock.now + 4 * HOUR);
    expect(tokenOf((await imageUrl(a.id)).url)).not.toBe(tokenOf(presigned.url));
    // download_url: the standing token, with at least half the TTL left, reported as expires_at
    const expiresAt = new Date(a.expires_at).getTime();
    expect(expiresAt - s.clock.now).toBeGreaterThanOrEqual(2 * HOUR);
    expect(expiresAt - s.clock.now).toBeLessThanOrEqual(4 * HOUR);
  });

  it('lists InfraEnvs with short download_urls that open their own ISO', async () => {
    const mine = [await create(), await create(), await create()];
    const listed = (await (await s.call('GET', `${API}/infra-envs`)).json()) as {
      id: string;
      download_url: string;
      expires_at: string;
    }[];
    for (const ie of mine) {
      const entry = listed.find((l) => l.id === ie.id)!;
      expect(entry.download_url).toBe(ie.download_url);
      expect(entry.expires_at).toBe(ie.expires_at);
      expect(await head(entry.download_url)).toBe(200);
    }
  });

  it('stores only sha256 hashes, with the InfraEnv and expiry', async () => {
    const a = await create();
    const minted = tokenOf((await imageUrl(a.id)).url);
    const standing = tokenOf(a.download_url);
    const rows = await s.sql<{ token_hash: string; infra_env_id: string; standing: boolean; expires_at: Date }>(
      'SELECT token_hash, infra_env_id, standing, expires_at FROM image_url_tokens WHERE infra_env_id = $1',
      [a.id],
    );
    const sha = (t: string) => createHash('sha256').update(t).digest('base64url');
    expect(rows.map((r) => r.token_hash).sort()).toEqual([sha(minted), sha(standing)].sort());
    expect(rows.find((r) => r.token_hash === sha(standing))?.standing).toBe(true);
    const everything = JSON.stringify(await s.sql('SELECT * FROM image_url_tokens'));
    expect(everything).not.toContain(minted);
    expect(everything).not.toContain(standing);
  });

  it('opens its own ISO for a BMC (HEAD, then Range GETs) and nothing of another InfraEnv', async () => {
    const a = await create();
    const b = await create();
    const url = local((await imageUrl(a.id)).url);
    const headRes = await fetch(url, { method: 'HEAD' });
    expect(headRes.status).toBe(200);
    const size = Number(headRes.headers.get('content-length'));
    expect(size).toBeGreaterThan(64 * 1024);
    const ranges: Buffer[] = [];
    for (const [start, end] of [
      [0, 2047],
      [32_768, 34_815],
      [size - 2048, size - 1],
    ] as const) {
      const res = await fetch(url, { headers: { Range: `bytes=${start}-${end}` } });
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      ranges.push(Buffer.from(await res.arrayBuffer()));
    }
    expect(ranges.map((r) => r.length)).toEqual([2048, 2048, 2048]);
    // the same bytes as the byid URL opened with the admin token
    const viaAdmin = await fetch(`${s.service.url}/byid/${a.id}/4.17/x86_64/full.iso`, {
      headers: { ...s.admin, Range: 'bytes=32768-34815' },
    });
    expect(Buffer.from(await viaAdmin.arrayBuffer()).equals(ranges[1]!)).toBe(true);
    expect(await head(a.download_url)).toBe(200);

    // A's token never opens B: not as image_token, Image-Token, nor on B's API
    const tokenA = tokenOf(url);
    const isoB = `${s.service.url}/images/${b.id}?version=4.17&type=full-iso`;
    expect((await fetch(`${isoB}&image_token=${tokenA}`, { method: 'HEAD' })).status).toBe(401);
    expect((await fetch(isoB, { method: 'HEAD', headers: { 'Image-Token': tokenA } })).status).toBe(401);
    expect((await fetch(`${s.service.url}${API}/infra-envs/${b.id}?image_token=${tokenA}`)).status).toBe(401);
    // ...but opens A through those channels too
    expect(
      (
        await fetch(`${s.service.url}/images/${a.id}?version=4.17&type=full-iso&image_token=${tokenA}`, {
          method: 'HEAD',
        })
      ).status,
    ).toBe(200);
  });

  it('expires: 401 with the image side error body once the clock passes expires_at', async () => {
    const a = await create();
    const presigned = await imageUrl(a.id);
    expect(await head(presigned.url)).toBe(200);
    s.clock.advance(new Date(presigned.expires_at).getTime() - s.clock.now - 1000);
    expect(await head(presigned.url)).toBe(200);
    s.clock.advance(1000);
    const res = await fetch(local(presigned.url));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 401, message: expect.stringMatching(/expired/) });
  });

  it('re-mints the standing download_url token when less than half its TTL remains', async () => {
    const a = await create();
    const first = (await (await s.call('GET', `${API}/infra-envs/${a.id}`)).json()) as typeof a;
    expect(first.download_url).toBe(a.download_url); // stable within its slot
    const left = new Date(first.expires_at).getTime() - s.clock.now;
    s.clock.advance(left - 2 * HOUR + 1000); // now less than half of 4 h left
    const second = (await (await s.call('GET', `${API}/infra-envs/${a.id}`)).json()) as typeof a;
    expect(second.download_url).not.toBe(first.download_url);
    expect(new Date(second.expires_at).getTime() - s.clock.now).toBeGreaterThanOrEqual(2 * HOUR);
    expect(await head(first.download_url)).toBe(200); // the old one still lives until its expiry
    expect(await head(second.download_url)).toBe(200);
  });

  it('revokes every token at regenerate-signing-key and at delete', async () => {
    const a = await create();
    const minted = (await imageUrl(a.id)).url;
    expect(await head(minted)).toBe(200);
    expect(await head(a.download_url)).toBe(200);
    expect((await s.call('POST', `${API}/infra-envs/${a.id}/regenerate-signing-key`)).status).toBe(204);
    expect(await head(minted)).toBe(401);
    expect(await head(a.download_url)).toBe(401);
    const after = (await (await s.call('GET', `${API}/infra-envs/${a.id}`)).json()) as typeof a;
    expect(after.download_url).not.toBe(a.download_url);
    expect(await head(after.download_url)).toBe(200);

    const again = (await imageUrl(a.id)).url;
    expect((await s.call('DELETE', `${API}/infra-envs/${a.id}`)).status).toBe(204);
    expect(await head(again)).toBe(401);
    expect(await head(after.download_url)).toBe(401);
    expect(await s.sql('SELECT 1 FROM image_url_tokens WHERE infra_env_id = $1', [a.id])).toEqual([]);
  });

  it('keeps at most a bounded number of minted tokens per InfraEnv and purges expired ones', async () => {
    const a = await create();
    const urls: string[] = [];
    for (let i = 0; i < MAX_LIVE_TOKENS_PER_INFRA_ENV + 8; i++) urls.push((await imageUrl(a.id)).url);
    const count = async () =>
      Number(
        (
          await s.sql<{ n: string }>(
            'SELECT count(*) AS n FROM image_url_tokens WHERE infra_env_id = $1 AND NOT standing',
            [a.id],
          )
        )[0]!.n,
      );
    expect(await count()).toBe(MAX_LIVE_TOKENS_PER_INFRA_ENV);
    expect(await head(urls[0]!)).toBe(401); // the oldest were dropped
    expect(await head(urls.at(-1)!)).toBe(200);
    // past every expiry, the next insert purges what expired
    s.clock.advance(5 * HOUR);
    await imageUrl(a.id);
    expect(await count()).toBe(1);
  });

  it('keeps JWTs working: the API key on /byapikey/, a JWT image token on /bytoken/', async () => {
    const a = await create();
    const script = await (
      await s.call('GET', `${API}/infra-envs/${a.id}/downloads/files?file_name=ipxe-script`)
    ).text();
    const apiKey = decodeURIComponent(/[?&]api_key=([^&\s]+)/.exec(script)![1]!);
    expect(isJwtShaped(apiKey)).toBe(true);
    expect((await fetch(`${s.service.url}/byapikey/${apiKey}/4.17/x86_64/full.iso`, { method: 'HEAD' })).status).toBe(
      200,
    );
    const presigned = (await (
      await s.call('GET', `${API}/infra-envs/${a.id}/downloads/files-presigned?file_name=discovery.ign`)
    ).json()) as { url: string };
    const jwt = new URL(presigned.url).searchParams.get('image_token')!;
    expect(isJwtShaped(jwt)).toBe(true);
    expect((await fetch(`${s.service.url}/bytoken/${jwt}/4.17/x86_64/full.iso`, { method: 'HEAD' })).status).toBe(200);
    // unknown opaque tokens are 401, never 500
    for (const bogus of ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x', '%7E%7E', 'a'.repeat(200)])
      expect((await fetch(`${s.service.url}/bytoken/${bogus}/4.17/x86_64/full.iso`, { method: 'HEAD' })).status).toBe(
        401,
      );
  });

  it('never logs a token (debug access log included)', async () => {
    const a = await create();
    const minted = tokenOf((await imageUrl(a.id)).url);
    await head(`${BASE}/bytoken/${minted}/4.17/x86_64/full.iso`);
    await head(`${BASE}/BYTOKEN/${minted}/4.17/x86_64/full.iso`);
    await fetch(`${s.service.url}/images/${a.id}?version=4.17&type=full-iso&image_token=${minted}`, { method: 'HEAD' });
    const text = s.logs.join('');
    expect(text).toContain('"msg":"request"');
    expect(text).not.toContain(minted);
    expect(text).not.toContain(tokenOf(a.download_url));
  });
});

describe('short image-URL tokens on a --role image replica fronting the core', () => {
  let core: AllInOne;
  let image: RunningService;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    core = await startAllInOne({ AUTH_TYPE: 'local' });
    dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-image-role-'));
    const config = loadConfig(
      {
        LISTEN_PORT: '0',
        LISTEN_ADDRESS: '127.0.0.1',
        DATA_DIR: dir,
        ASSISTED_SERVICE_URL: core.service.url,
        OS_IMAGES: JSON.stringify([
          { openshift_version: DEMO_VERSION, cpu_architecture: 'x86_64', url: DEMO_IMAGE_PATH, version: '417.94.1' },
        ]),
      },
      ['--role', 'image'],
    );
    image = await startService(config, createLogger('debug', { write: (l: string) => logs.push(l) }), {
      defaultMetrics: false,
    });
    await image.imagesLoaded;
  }, 60_000);
  afterAll(async () => {
    await image?.close();
    await core?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('resolves the token through the core (GET /v2/image-url-tokens/self) and serves HEAD and Range', async () => {
    const created = (await (
      await core.call('POST', `${API}/infra-envs`, {
        name: 'r',
        pull_secret: PULL_SECRET,
        openshift_version: DEMO_VERSION,
      })
    ).json()) as { id: string; download_url: string };
    const minted = (await (await core.call('GET', `${API}/infra-envs/${created.id}/downloads/image-url`)).json()) as {
      url: string;
    };
    for (const url of [created.download_url, minted.url]) {
      const onReplica = image.url + new URL(url).pathname;
      expect((await fetch(onReplica, { method: 'HEAD' })).status).toBe(200);
      const ranged = await fetch(onReplica, { headers: { Range: 'bytes=0-511' } });
      expect(ranged.status).toBe(206);
      expect((await ranged.arrayBuffer()).byteLength).toBe(512);
    }
    // the core's answer to the replica, and its refusal of anything else
    const token = new URL(minted.url).pathname.split('/')[2]!;
    const self = await fetch(`${core.service.url}${API}/image-url-tokens/self`, { headers: { 'Image-Token': token } });
    expect(self.status).toBe(200);
    expect(await self.json()).toEqual({ infra_env_id: created.id, expires_at: expect.any(String) });
    expect((await fetch(`${core.service.url}${API}/image-url-tokens/self`)).status).toBe(401);
    const bogus = `${image.url}/bytoken/${'B'.repeat(32)}/4.17/x86_64/full.iso`;
    const refused = await fetch(bogus);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ code: 401, message: expect.any(String) });

    // revoked: refused once the replica's short cache (5 s) lets go
    expect((await core.call('POST', `${API}/infra-envs/${created.id}/regenerate-signing-key`)).status).toBe(204);
    const onReplica = image.url + new URL(minted.url).pathname;
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await fetch(onReplica, { method: 'HEAD' })).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(401);
    expect(logs.join('')).not.toContain(token);
    expect(core.logs.join('')).not.toContain(token);
  }, 60_000);
});

describe('standing token derivation', () => {
  it('is stable within half a TTL, changes after, and depends on the key', () => {
    const ttl = 4 * HOUR;
    const t0 = new Date(Math.floor(Date.now() / (ttl / 2)) * (ttl / 2));
    const a = standingUrlToken('a2V5LWE', ttl, t0);
    expect(standingUrlToken('a2V5LWE', ttl, new Date(t0.getTime() + ttl / 2 - 1))).toEqual(a);
    expect(standingUrlToken('a2V5LWE', ttl, new Date(t0.getTime() + ttl / 2)).token).not.toBe(a.token);
    expect(standingUrlToken('a2V5LWI', ttl, t0).token).not.toBe(a.token);
    expect(a.expiresAt.getTime()).toBe(t0.getTime() + ttl);
  });
});
