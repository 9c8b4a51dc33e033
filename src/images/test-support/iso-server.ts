// Test support: a loopback HTTP(S) server that serves byte blobs the way real mirrors do and
// the ways they fail: slowly, dropping the connection part way, lying about Content-Length,
// ignoring Range, answering errors first, redirecting, going silent. It records every request (method,
// path, Range, If-Range, headers) and the highest number of bodies sent at once.
// Used only by tests.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface Behaviour {
  /** Bytes per write and pause between writes (slow serving). */
  chunkBytes?: number;
  delayMs?: number;
  /** Destroy the connection after this many body bytes, for the first `dropTimes` responses (default 1). */
  dropAfter?: number;
  dropTimes?: number;
  /**
   * After this many body bytes of the first response, send nothing more and keep the connection
   * open until the client gives up: a silent mirror, which only the client's idle timeout ends.
   */
  stallAfter?: number;
  /** Status codes answered (with a short body) by the first requests, in order. */
  failFirst?: number[];
  /** Always answer this status. */
  status?: number;
  /** Answer every request with the whole body and 200, ignoring Range. */
  ignoreRange?: boolean;
  /** Announce this Content-Length instead of the real one (a 200 without Range only). */
  contentLength?: number;
  /** Announce no size at all (chunked transfer encoding; a 200 without Range only). */
  chunked?: boolean;
  /** Strong ETag (default: sha256-based); `null` sends none. */
  etag?: string | null;
  /** Last-Modified to send (none by default); If-Range matches it as well as the ETag. */
  lastModified?: string;
  /** Send a 302 to this URL instead. */
  redirectTo?: string;
  /** Closed ranges (`bytes=a-b`, as a server-while-downloading reads) are sent at once, without `delayMs`. */
  closedRangesFast?: boolean;
}

export interface Hit {
  method: string;
  path: string;
  range: string | undefined;
  ifRange: string | undefined;
  headers: http.IncomingHttpHeaders;
}

export class IsoServer {
  readonly hits: Hit[] = [];
  maxActive = 0;
  private active = 0;
  private readonly routes = new Map<string, { body: Buffer; behaviour: Behaviour; served: number; dropped: number }>();
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  /** Body bytes written so far, all routes together. */
  bytesSent = 0;

  constructor(tls?: { key: string; cert: string }) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler);
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get origin(): string {
    const { port } = this.server.address() as AddressInfo;
    return `${this.server instanceof https.Server ? 'https' : 'http'}://127.0.0.1:${port}`;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  /** Serves `body` at `path` with `behaviour` (replacing any earlier route there). */
  serve(path: string, body: Buffer, behaviour: Behaviour = {}): this {
    this.routes.set(path, { body, behaviour, served: 0, dropped: 0 });
    return this;
  }

  hitsFor(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    this.hits.push({
      method: req.method ?? 'GET',
      path,
      range: req.headers.range,
      ifRange: req.headers['if-range'] as string | undefined,
      headers: req.headers,
    });
    const route = this.routes.get(path);
    if (!route) {
      res.writeHead(404).end('not found');
      return;
    }
    const { body, behaviour: b } = route;
    const index = route.served++;
    if (b.redirectTo) {
      res.writeHead(302, { Location: b.redirectTo }).end();
      return;
    }
    const failure = b.status ?? b.failFirst?.[index];
    if (failure !== undefined) {
      res.writeHead(failure, { 'Content-Type': 'text/plain' }).end(`status ${failure}`);
      return;
    }
    const etag =
      b.etag === null ? undefined : (b.etag ?? `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`);
    let start = 0;
    let end = body.length - 1;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    const rangeApplies =
      range &&
      !b.ignoreRange &&
      (ifRange === undefined || ifRange === etag || (b.lastModified !== undefined && ifRange === b.lastModified));
    const headers: http.OutgoingHttpHeaders = {
      'Content-Type': 'application/octet-stream',
      'Accept-Ranges': 'bytes',
      ...(etag ? { ETag: etag } : {}),
      ...(b.lastModified ? { 'Last-Modified': b.lastModified } : {}),
    };
    const closed = rangeApplies && range[2] !== '';
    if (rangeApplies) {
      start = Number(range[1]);
      if (closed) end = Math.min(end, Number(range[2]));
      if (start >= body.length || start > end) {
        res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        ...headers,
        'Content-Length': end - start + 1,
        'Content-Range': `bytes ${start}-${end}/${body.length}`,
      });
    } else {
      res.writeHead(200, b.chunked ? headers : { ...headers, 'Content-Length': b.contentLength ?? body.length });
    }
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const dropAt = b.dropAfter !== undefined && route.dropped < (b.dropTimes ?? 1) ? b.dropAfter : undefined;
    if (dropAt !== undefined) route.dropped++;
    const stallAt = index === 0 ? b.stallAfter : undefined;
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    let counted = true;
    const finished = () => {
      if (counted) this.active--;
      counted = false;
    };
    try {
      const behaviour = closed && b.closedRangesFast ? { ...b, delayMs: 0 } : b;
      const data = body.subarray(start, end + 1);
      if (stallAt !== undefined && !closed) await this.stall(res, data.subarray(0, stallAt));
      else await this.send(res, data, behaviour, closed ? undefined : dropAt, finished);
    } finally {
      finished();
    }
  }

  /** Writes `head`, then nothing more: resolves once the client closes the connection. */
  private async stall(res: http.ServerResponse, head: Buffer): Promise<void> {
    this.bytesSent += head.length;
    res.write(head);
    if (!res.socket || res.socket.destroyed) return;
    await new Promise((resolve) => res.socket!.once('close', resolve));
  }

  /** Writes `data`; calls `finished` as soon as the last byte is handed to the socket. */
  private async send(
    res: http.ServerResponse,
    data: Buffer,
    b: Behaviour,
    dropAt: number | undefined,
    finished: () => void,
  ): Promise<void> {
    const chunk = b.chunkBytes ?? 256 * 1024;
    let sent = 0;
    while (sent < data.length) {
      if (res.destroyed) return;
      let n = Math.min(chunk, data.length - sent);
      if (dropAt !== undefined) n = Math.min(n, dropAt - sent);
      if (n > 0) {
        const piece = data.subarray(sent, sent + n);
        sent += n;
        this.bytesSent += n;
        const flushed = res.write(piece);
        if (sent === data.length) break;
        if (!flushed) await new Promise((resolve) => res.once('drain', resolve));
      }
      if (dropAt !== undefined && sent >= dropAt) {
        await new Promise((resolve) => setTimeout(resolve, 20)); // let the bytes leave first
        res.socket?.destroy();
        return;
      }
      if (b.delayMs) await new Promise((resolve) => setTimeout(resolve, b.delayMs));
    }
    finished();
    res.end();
  }
}
