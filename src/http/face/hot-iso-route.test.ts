// The express-free hot path (hot-iso-route.ts) answers exactly as the express routes for the
// same URLs: each request below is sent once in the form the hot path takes and once with a
// query string added (which sends it through express), over real loopback HTTP to the real
// image-role service, and the two answers are compared whole (status, headers, body), as are the
// request metrics each leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ID,
  type ImageService,
  type Reply,
  fakeJwt,
  request,
  startImageService,
} from '../../../test/support/image-service.js';

/** Headers that differ between any two answers in time, not in content. */
const TIME_HEADERS = new Set(['date', 'keep-alive', 'connection']);

/** A reply with what legitimately differs per answer taken out: time headers, the random multipart boundary. */
function comparable(reply: Reply) {
  const boundary = /boundary=(\S+)/.exec(reply.headers['content-type'] ?? '')?.[1];
  const unbound = (text: string) => (boundary === undefined ? text : text.split(boundary).join('BOUNDARY'));
  const headers = Object.fromEntries(
    Object.entries(reply.headers)
      .filter(([name]) => !TIME_HEADERS.has(name))
      .map(([name, value]) => [name, typeof value === 'string' ? unbound(value) : value]),
  );
  return { status: reply.status, headers, body: unbound(reply.body.toString('latin1')) };
}

async function routeCount(base: string, route: string): Promise<number> {
  const text = (await request(`${base}/metrics`)).body.toString();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('bootsmith_http_requests_total{') && line.includes(`route="${route}"`))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

describe('hot path-style ISO route', () => {
  let running: ImageService;
  let base: string;
  beforeAll(async () => {
    running = await startImageService();
    base = running.base;
  });
  afterAll(async () => {
    await running?.close();
  });

  const jwt = fakeJwt({ infra_env_id: ID });
  const cases: [string, string, Record<string, string>][] = [
    ['GET', `/byid/${ID}/4.17/x86_64/full.iso`, {}],
    ['HEAD', `/byid/${ID}/4.17/x86_64/full.iso`, {}],
    ['GET', `/byid/${ID}/4.17/x86_64/full.iso`, { Range: 'bytes=32768-40000' }],
    ['GET', `/byid/${ID}/4.17/x86_64/full.iso`, { Range: 'bytes=0-9,100-199' }],
    ['GET', `/byid/${ID}/4.17/x86_64/full.iso`, { Range: 'bytes=99999999-' }],
    ['GET', `/byid/${ID}/4.16/x86_64/minimal.iso`, {}],
    ['GET', `/byapikey/${jwt}/4.17/x86_64/full.iso`, { Range: 'bytes=-4096' }],
    ['HEAD', `/bytoken/${jwt}/4.17/x86_64/full.iso`, {}],
    ['GET', `/byid/not-a-uuid/4.17/x86_64/full.iso`, {}],
    ['GET', `/byid/${ID}/4.17/x86_64/other.iso`, {}],
    ['GET', `/byid/${ID}/9.99/x86_64/full.iso`, {}],
    ['GET', `/byid/${ID}/4.18/x86_64/full.iso`, {}],
    ['GET', `/bytoken/garbage/4.17/x86_64/full.iso`, {}],
    ['GET', `/bytoken/a.b.c/4.17/x86_64/full.iso`, {}],
    ['HEAD', `/byid/${ID}/4.16/x86_64/full.iso`, { 'Image-Token': jwt }],
  ];

  it.each(cases)('%s %s %j: the same answer with and without express', async (method, path, headers) => {
    const hot = await request(base + path, { method, headers });
    const viaExpress = await request(`${base}${path}?via=express`, { method, headers });
    expect(comparable(hot)).toEqual(comparable(viaExpress));
    expect(hot.status).not.toBe(500);
  });

  it('answers a conditional request the same way (304 to the current ETag)', async () => {
    const path = `/byid/${ID}/4.17/x86_64/full.iso`;
    const etag = (await request(base + path, { method: 'HEAD' })).headers.etag!;
    const hot = await request(base + path, { headers: { 'If-None-Match': etag } });
    const viaExpress = await request(`${base}${path}?via=express`, { headers: { 'If-None-Match': etag } });
    expect(hot.status).toBe(304);
    expect(comparable(hot)).toEqual(comparable(viaExpress));
  });

  it('counts its requests under the route label express gives the same route', async () => {
    const route = '/byid/:id/:version/:arch/:filename';
    const before = await routeCount(base, route);
    await request(`${base}/byid/${ID}/4.17/x86_64/full.iso`, { method: 'HEAD' });
    await request(`${base}/byid/${ID}/4.17/x86_64/full.iso?via=express`, { method: 'HEAD' });
    expect(await routeCount(base, route)).toBe(before + 2);
  });

  it('leaves other methods and URL variants to express', async () => {
    const path = `/byid/${ID}/4.17/x86_64/full.iso`;
    expect((await request(base + path, { method: 'POST' })).status).toBe(404);
    expect((await request(`${base}${path}/`, { method: 'HEAD' })).status).toBe(200); // express: non-strict
    expect((await request(`${base}/byid/${ID}/4.17/x86_64/full%2Eiso`, { method: 'HEAD' })).status).toBe(200);
  });
});
