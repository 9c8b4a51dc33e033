// The face's token-read watch (token-read-watch.ts) over a real loopback server answering with the
// range layer (serveRepresentation, the watch's hook as its onPlan): it reports a HEAD, a 200 GET
// as the whole file and a 206 GET with the ranges the plan served (half-open; several for a
// multipart answer, the whole file when a stale If-Range turns the Range into a 200), and nothing
// for a 416 or a response cut short by its source.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TokenReadReport } from '../../image-ports/token-read-observer.js';
import { hashUrlToken } from '../../image-ports/url-token-resolver.js';
import { serveRepresentation } from '../representation/serve-representation.js';
import { SIZE } from '../representation/test-support/range-cases.js';
import { DATA, testRep } from '../representation/test-support/test-representations.js';
import { watchTokenRead } from './token-read-watch.js';

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(reports: TokenReadReport[]): Promise<string> {
  server = http.createServer((req, res) => {
    const rep = req.url === '/cut' ? testRep(DATA, { failAfter: 10 }) : testRep(DATA);
    const onPlan = watchTokenRead({ tokenRead: (r) => reports.push(r) }, req, res, 'tok-en_1', SIZE, [
      { offset: 100, length: 50 },
    ]);
    void serveRepresentation(req, res, rep, { onPlan });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

async function until(probe: () => boolean, withinMs = 30_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('token reads', () => {
  it('reports HEAD, 200 and 206 answers with the ranges served; not a 416 or a cut response', async () => {
    const reports: TokenReadReport[] = [];
    const base = await serve(reports);
    const get = async (path: string, headers: Record<string, string> = {}, method = 'GET') =>
      (await fetch(`${base}${path}`, { method, headers })).arrayBuffer();
    // the answers that must not be reported first: a report of them would come before the others
    await get('/iso', { Range: `bytes=${SIZE}-` });
    await get('/cut').catch(() => undefined);
    await get('/iso', {}, 'HEAD');
    await get('/iso', { Range: 'bytes=2048-4095' });
    await get('/iso');
    await get('/iso', { Range: 'bytes=0-9,100-199' });
    await get('/iso', { Range: 'bytes=0-9', 'If-Range': '"old"' });
    await until(() => reports.length >= 5);
    expect(reports.map((r) => [r.method, r.ranges])).toEqual([
      ['HEAD', []],
      ['GET', [[2048, 4096]]],
      ['GET', [[0, SIZE]]],
      [
        'GET',
        [
          [0, 10],
          [100, 200],
        ],
      ],
      ['GET', [[0, SIZE]]],
    ]);
    expect(reports[0]).toMatchObject({
      tokenHash: hashUrlToken('tok-en_1'),
      size: SIZE,
      bootExtents: [[100, 150]],
      address: '127.0.0.1',
    });
    expect(reports.every((r) => r.token === 'tok-en_1')).toBe(true);
  });
});
