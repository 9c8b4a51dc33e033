// Revocation of remembered image credentials, through HTTP on loopback, on two all-in-one replicas
// sharing one PostgreSQL database: an InfraEnv's HS256 image token (on the /bytoken/ ISO route and
// the API), its standing download_url token and a minted image-url token, each read on both
// replicas until every cache is warm (the authorizer's verified image tokens, the URL-token
// resolutions, the image face's Ignition cache); then regenerate-signing-key, and delete (also
// for the InfraEnv's API key on /byapikey/, which no key rotation revokes), on the first: it
// refuses every old credential on the next read, the second within the stated bound
// (IMAGE_TOKEN_MAX_AGE_MS / RESOLVE_CACHE_TTL_MS, 5 s; docs/reference/endpoints.md), with a margin
// for a loaded machine. The same bounds as numbers: verified-tokens.test.ts, authorizer.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../test/support/all-in-one.js';
import { IMAGE_TOKEN_MAX_AGE_MS } from './authorizer.js';
import { RESOLVE_CACHE_TTL_MS } from './url-tokens.js';

/** What a loaded machine may add to the bound: requests, a database round trip, scheduling. */
const MARGIN_MS = 5_000;
const BOUND_MS = Math.max(IMAGE_TOKEN_MAX_AGE_MS, RESOLVE_CACHE_TTL_MS);

describe('image credentials on two replicas sharing a database (AUTH_TYPE=local)', () => {
  let a: AllInOne;
  let b: AllInOne;

  beforeAll(async () => {
    a = await startAllInOne({ AUTH_TYPE: 'local' });
    b = await startAllInOne({ AUTH_TYPE: 'local' }, { sharedDatabaseUrl: a.databaseUrl });
  }, 90_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** The credentials a download of a fresh InfraEnv carries, as paths any replica answers. */
  async function credentials(): Promise<{ id: string; apiKey: string; paths: Record<string, string> }> {
    const created = await a.call('POST', `${API}/infra-envs`, {
      name: 'rack',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
    });
    expect(created.status).toBe(201);
    const { id, download_url } = (await created.json()) as { id: string; download_url: string };
    const minted = (await (await a.call('GET', `${API}/infra-envs/${id}/downloads/image-url`)).json()) as {
      url: string;
    };
    const presigned = (await (
      await a.call('GET', `${API}/infra-envs/${id}/downloads/files-presigned?file_name=discovery.ign`)
    ).json()) as { url: string };
    const jwt = new URL(presigned.url).searchParams.get('image_token')!;
    expect(jwt.split('.')).toHaveLength(3);
    const script = await (await a.call('GET', `${API}/infra-envs/${id}/downloads/files?file_name=ipxe-script`)).text();
    const apiKey = decodeURIComponent(/[?&]api_key=([^&\s]+)/.exec(script)![1]!);
    return {
      apiKey: `/byapikey/${apiKey}/4.17/x86_64/full.iso`,
      id,
      paths: {
        'image token (JWT) on /bytoken/': `/bytoken/${jwt}/4.17/x86_64/full.iso`,
        'image token (JWT) on the API': `${API}/infra-envs/${id}?image_token=${jwt}`,
        'standing download_url token': new URL(download_url).pathname,
        'minted image-url token': new URL(minted.url).pathname,
      },
    };
  }

  /** The status of a 512-byte read of `p` on `replica`, without any other credential. */
  const read = async (replica: AllInOne, p: string): Promise<number> => {
    const res = await fetch(replica.service.url + p, { headers: { Range: 'bytes=0-511' } });
    await res.arrayBuffer();
    return res.status;
  };
  const opened = (status: number) => status === 200 || status === 206;

  async function warm(paths: Record<string, string>): Promise<void> {
    for (const replica of [a, b])
      for (let i = 0; i < 3; i++)
        for (const [name, p] of Object.entries(paths)) expect(opened(await read(replica, p)), name).toBe(true);
  }

  /** Refused: 401 (the credential), or 404 for an API key whose InfraEnv is gone. */
  const refused = (status: number) => status === 401 || status === 404;

  /** ms from `since` until every path is refused on `replica` (polled), or the deadline. */
  async function refusedAfter(replica: AllInOne, paths: Record<string, string>, since: number): Promise<number> {
    const pending = new Set(Object.values(paths));
    while (pending.size > 0 && performance.now() - since < BOUND_MS + MARGIN_MS) {
      for (const p of [...pending]) if (refused(await read(replica, p))) pending.delete(p);
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const left = Object.entries(paths).filter(([, p]) => pending.has(p));
    expect(left.map(([name]) => name)).toEqual([]);
    return performance.now() - since;
  }

  it('regenerate-signing-key: refused at once where it ran, within the bound on the other replica', async () => {
    const { id, paths } = await credentials();
    await warm(paths);
    const t0 = performance.now();
    expect((await a.call('POST', `${API}/infra-envs/${id}/regenerate-signing-key`)).status).toBe(204);
    for (const [name, p] of Object.entries(paths)) expect(await read(a, p), name).toBe(401);
    const onB = await refusedAfter(b, paths, t0);
    expect(onB).toBeLessThanOrEqual(BOUND_MS + MARGIN_MS);
    // the new credentials open on both at once
    const fresh = (await (await a.call('GET', `${API}/infra-envs/${id}`)).json()) as { download_url: string };
    for (const replica of [a, b]) expect(opened(await read(replica, new URL(fresh.download_url).pathname))).toBe(true);
  }, 60_000);

  it('delete: refused at once where it ran, within the bound on the other replica (the API key too)', async () => {
    const { id, apiKey, paths: imagePaths } = await credentials();
    const paths = { ...imagePaths, 'API key on /byapikey/': apiKey };
    await warm(paths);
    const t0 = performance.now();
    expect((await a.call('DELETE', `${API}/infra-envs/${id}`)).status).toBe(204);
    for (const [name, p] of Object.entries(imagePaths)) expect(await read(a, p), name).toBe(401);
    expect(await read(a, apiKey)).toBe(404);
    const onB = await refusedAfter(b, paths, t0);
    expect(onB).toBeLessThanOrEqual(BOUND_MS + MARGIN_MS);
  }, 60_000);

  it('the same on the replica that did not make the change: B revokes, A follows', async () => {
    const { id, paths } = await credentials();
    await warm(paths);
    const t0 = performance.now();
    expect((await b.call('POST', `${API}/infra-envs/${id}/regenerate-signing-key`)).status).toBe(204);
    for (const [name, p] of Object.entries(paths)) expect(await read(b, p), name).toBe(401);
    await refusedAfter(a, paths, t0);
  }, 60_000);
});
