// A slow HTTP origin for one object, as a far-away mirror looks to a new replica: a whole-object
// GET (or an open `bytes=N-` resume) trickles at a fixed rate, while closed ranges (`bytes=a-b`,
// what a replica serving while it downloads asks for) are answered at once. Strong ETag, so
// resumes and If-Range work. Loopback only; used only by the scale test.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const PIECE_BYTES = 64 * 1024;

export interface ThrottledOrigin {
  url: string;
  /** Closed-range requests answered so far. */
  rangeReads(): number;
  close(): Promise<void>;
}

export async function startThrottledOrigin(body: Buffer, bytesPerSecond: number): Promise<ThrottledOrigin> {
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"`;
  const delayMs = (PIECE_BYTES / bytesPerSecond) * 1000;
  let ranges = 0;
  const server = http.createServer((req, res) => {
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    const rangeOk = m !== null && (ifRange === undefined || ifRange === etag);
    const start = rangeOk ? Number(m[1]) : 0;
    const closed = rangeOk && m[2] !== '';
    const end = closed ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
    if (start > end) {
      res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end();
      return;
    }
    const headers = { ETag: etag, 'Accept-Ranges': 'bytes', 'Content-Length': end - start + 1 };
    if (rangeOk) res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${body.length}` });
    else res.writeHead(200, headers);
    if (closed) {
      ranges++;
      res.end(body.subarray(start, end + 1));
      return;
    }
    let at = start;
    const tick = () => {
      if (res.destroyed) return;
      const next = Math.min(at + PIECE_BYTES, end + 1);
      res.write(body.subarray(at, next));
      at = next;
      if (at > end) res.end();
      else setTimeout(tick, delayMs);
    };
    tick();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    rangeReads: () => ranges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
