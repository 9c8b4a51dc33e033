// The face's token-read watch (token-read-watch.ts) over a real loopback server: it reports a
// HEAD, a 206 with the Range header's ranges (half-open), a 200 as the whole file, and nothing for
// a 416 or a request cut short.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { hashUrlToken } from '../../image-ports/url-token-resolver.js';
import type { TokenReadReport } from '../../image-ports/token-read-observer.js';
import { watchTokenRead } from './token-read-watch.js';

const SIZE = 10_000;
let server: http.Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(reports: TokenReadReport[]): Promise<string> {
  server = http.createServer((req, res) => {
    watchTokenRead({ tokenRead: (r) => reports.push(r) }, req, res, 'tok-en_1', SIZE, [{ offset: 100, length: 50 }]);
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (req.url === '/cut') {
      res.writeHead(200, { 'Content-Length': SIZE });
      res.write(Buffer.alloc(10));
      res.destroy();
      return;
    }
    if (req.url === '/416') return void res.writeHead(416).end();
    if (range) {
      const [s, e] = [Number(range[1]), Number(range[2])];
      res.writeHead(206, { 'Content-Length': e - s + 1 });
      return void res.end(req.method === 'HEAD' ? undefined : Buffer.alloc(e - s + 1));
    }
    res.writeHead(200, { 'Content-Length': SIZE });
    res.end(req.method === 'HEAD' ? undefined : Buffer.alloc(SIZE));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('token reads', () => {
  it('reports HEAD, 206 ranges and a 200 as the whole file; not a 416 or a cut response', async () => {
    const reports: TokenReadReport[] = [];
    const base = await serve(reports);
    await (await fetch(`${base}/iso`, { method: 'HEAD' })).arrayBuffer();
    await (await fetch(`${base}/iso`, { headers: { Range: 'bytes=2048-4095' } })).arrayBuffer();
    await (await fetch(`${base}/iso`)).arrayBuffer();
    await (await fetch(`${base}/416`)).arrayBuffer();
    await fetch(`${base}/cut`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(reports.map((r) => [r.method, r.ranges])).toEqual([
      ['HEAD', []],
      ['GET', [[2048, 4096]]],
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
