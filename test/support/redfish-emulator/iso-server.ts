// Test support: a static server for one image file over HTTP or HTTPS, answering HEAD and single
// Range GETs the way a BMC's virtual media client needs, and logging each request (method, range,
// status) so a test can see who read what.
// Does NOT: do multipart ranges or conditional requests (bootsmith's range layer does; this stands
// in for it where a test needs no bootsmith).
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';

export interface IsoRequest {
  method: string;
  path: string;
  range: string | undefined;
  status: number;
}

export interface IsoServer {
  /** `http(s)://127.0.0.1:<port>/<name>` */
  url: string;
  size: number;
  requests: IsoRequest[];
  close(): Promise<void>;
}

export async function startIsoServer(options: {
  file: string;
  name?: string;
  tls?: { certPem: string; keyPem: string };
}): Promise<IsoServer> {
  const size = statSync(options.file).size;
  const name = options.name ?? 'boot.iso';
  const requests: IsoRequest[] = [];
  const sockets = new Set<net.Socket>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const entry: IsoRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      range: req.headers.range,
      status: 0,
    };
    requests.push(entry);
    const answer = (status: number, headers: Record<string, string | number> = {}): void => {
      entry.status = status;
      res.writeHead(status, headers);
    };
    if (entry.path !== `/${name}`) {
      answer(404);
      res.end();
      return;
    }
    if (entry.method === 'HEAD') {
      answer(200, { 'Content-Length': size, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' });
      res.end();
      return;
    }
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (m) {
      const start = Number(m[1]);
      const end = Math.min(m[2] ? Number(m[2]) : size - 1, size - 1);
      if (start >= size || end < start) {
        answer(416, { 'Content-Range': `bytes */${size}` });
        res.end();
        return;
      }
      answer(206, {
        'Content-Length': end - start + 1,
        'Content-Range': `bytes ${start}-${end}/${size}`,
        'Accept-Ranges': 'bytes',
      });
      createReadStream(options.file, { start, end }).pipe(res);
      return;
    }
    answer(200, { 'Content-Length': size, 'Accept-Ranges': 'bytes' });
    createReadStream(options.file).pipe(res);
  };
  const server = options.tls
    ? https.createServer({ cert: options.tls.certPem, key: options.tls.keyPem }, handler)
    : http.createServer(handler);
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/${name}`,
    size,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
