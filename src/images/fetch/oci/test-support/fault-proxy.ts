// Test support: an HTTPS reverse proxy on loopback in front of a real registry, presenting the
// test PKI's server certificate, that misbehaves on request: cut the connection after N body
// bytes, stall (no headers, or no more body bytes), replace the answer, or hand the request to a
// custom handler (a redirect to "storage", an oversize manifest). Every request is recorded
// (method, path, Range, whether it carried Authorization, status, body bytes sent) so tests can
// observe server-side what the client did. Used only by tests.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TestPki } from './test-pki.js';

export type Fault =
  | { kind: 'pass' }
  /** Forward, then destroy the client connection after this many body bytes. */
  | { kind: 'cut'; afterBytes: number }
  /** Forward headers and this many body bytes, then send nothing more (connection left open). */
  | { kind: 'stall-body'; afterBytes: number }
  /** Accept the request and never answer. */
  | { kind: 'stall-headers' }
  | { kind: 'respond'; status: number; headers?: Record<string, string>; body?: Buffer | string }
  | { kind: 'handle'; handle: (req: IncomingMessage, res: ServerResponse) => void };

export interface ProxiedRequest {
  method: string;
  path: string;
  range: string | undefined;
  authorized: boolean;
  status?: number;
  bytes: number;
}

export interface FaultProxy {
  host: string;
  port: number;
  requests: ProxiedRequest[];
  /** Decides each request's fate; `pass` by default. */
  rule: (req: IncomingMessage, count: number) => Fault;
  close(): Promise<void>;
}

export async function startFaultProxy(pki: TestPki, upstreamHost: string): Promise<FaultProxy> {
  const sockets = new Set<Socket>();
  const proxy: FaultProxy = {
    host: '',
    port: 0,
    requests: [],
    rule: () => ({ kind: 'pass' }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = https.createServer(
    { cert: readFileSync(pki.certFile), key: readFileSync(pki.keyFile) },
    (req, res) => {
      const record: ProxiedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        range: req.headers.range,
        authorized: req.headers.authorization !== undefined,
        bytes: 0,
      };
      proxy.requests.push(record);
      const fault = proxy.rule(req, proxy.requests.length);
      switch (fault.kind) {
        case 'stall-headers':
          return;
        case 'respond':
          record.status = fault.status;
          res.writeHead(fault.status, fault.headers ?? {});
          res.end(fault.body ?? '');
          record.bytes = fault.body === undefined ? 0 : Buffer.byteLength(fault.body);
          return;
        case 'handle':
          fault.handle(req, res);
          return;
        case 'pass':
        case 'cut':
        case 'stall-body':
          forward(req, res, record, fault, upstreamHost, pki.caPem);
          return;
      }
    },
  );
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.host = `127.0.0.1:${proxy.port}`;
  return proxy;
}

function forward(
  req: IncomingMessage,
  res: ServerResponse,
  record: ProxiedRequest,
  fault: Fault,
  upstreamHost: string,
  ca: string,
): void {
  const headers = { ...req.headers, host: upstreamHost };
  const upstream = https.request(
    `https://${upstreamHost}${req.url ?? '/'}`,
    { method: req.method ?? 'GET', headers, ca, agent: false },
    (up) => {
      record.status = up.statusCode;
      const outHeaders = { ...up.headers };
      // a registry's own absolute Location would bypass the proxy; keep clients on it
      if (typeof outHeaders.location === 'string')
        outHeaders.location = outHeaders.location.replace(
          `https://${upstreamHost}`,
          `https://${req.headers.host ?? ''}`,
        );
      res.writeHead(up.statusCode ?? 502, outHeaders);
      up.on('data', (chunk: Buffer) => {
        if (fault.kind === 'cut' || fault.kind === 'stall-body') {
          const room = fault.afterBytes - record.bytes;
          if (room <= 0) return;
          const part = chunk.subarray(0, room);
          record.bytes += part.length;
          const reached = record.bytes >= fault.afterBytes;
          // cut once the bytes before the cut point are flushed, so the client has exactly afterBytes
          res.write(part, () => {
            if (reached && fault.kind === 'cut') res.socket?.end(); // FIN after the flushed bytes
          });
          if (reached) {
            if (fault.kind === 'cut') up.destroy();
            else up.pause();
          }
          return;
        }
        record.bytes += chunk.length;
        if (!res.write(chunk)) {
          up.pause();
          res.once('drain', () => up.resume());
        }
      });
      up.on('end', () => {
        if (fault.kind === 'pass') res.end();
        else if (fault.kind === 'cut' && record.bytes < fault.afterBytes) res.end(); // shorter than the cut point
      });
      up.on('error', () => res.destroy());
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}
