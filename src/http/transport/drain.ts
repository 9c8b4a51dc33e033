// Graceful drain of the HTTP listeners (the main one and, with native TLS, the plain one), for SIGTERM in a rolling update or a scale-down.
//
// Does: once `drain()` is called, readiness fails at once (`isDraining()`, read by /health),
// the listener stops accepting connections, idle keep-alive connections are closed, every
// response that starts from then on carries `Connection: close`, and a connection whose
// response was already under way is closed as soon as that response has finished. Streams in
// flight run to their end for up to the grace period; whatever is still open then is cut.
// `drain()` resolves when no connection is left (with how many were cut).
// Does NOT: stop anything behind the listener (the database, the image store: the caller does
// that after drain() resolves), install signal handlers (src/cli/main.ts), or answer requests.
import type http from 'node:http';
import type { Socket } from 'node:net';

/** SHUTDOWN_GRACE_SECONDS default: a 1 GiB ISO at ≥ 20 MB/s finishes; Kubernetes' terminationGracePeriodSeconds must exceed it. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 60_000;

export interface DrainResult {
  /** Connections still open when the grace period ended, destroyed. */
  cut: number;
  /** How long the drain took. */
  ms: number;
}

export class Drain {
  private draining = false;
  private done: Promise<DrainResult> | undefined;
  private readonly sockets = new Set<Socket>();
  /** Responses not finished yet (tracked per response, not per socket: works the same under TLS). */
  private readonly inFlight = new Set<http.ServerResponse>();

  private readonly servers: http.Server[] = [];

  constructor(server: http.Server) {
    this.add(server);
  }

  /** Drains `server` together with the others (a second listener added after the first). */
  add(server: http.Server): void {
    this.servers.push(server);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Requests that start on a kept-alive connection during the drain: answer, then close.
    // Prepended so the header is set before any route writes its answer.
    server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      this.inFlight.add(res);
      res.once('close', () => this.inFlight.delete(res));
      if (this.draining) this.closeAfter(res);
    });
  }

  isDraining(): boolean {
    return this.draining;
  }

  /** Open connections right now (tests and the shutdown log). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Starts the drain (idempotent); resolves when every connection has closed or was cut after `graceMs`. */
  drain(graceMs: number): Promise<DrainResult> {
    if (this.done) return this.done;
    this.draining = true;
    const started = Date.now();
    this.done = new Promise<DrainResult>((resolve) => {
      let cut = 0;
      const timer = setTimeout(() => {
        cut = this.sockets.size;
        for (const server of this.servers) server.closeAllConnections();
        for (const socket of this.sockets) socket.destroy();
      }, graceMs);
      timer.unref();
      // server.close() stops accepting and calls back once every connection has closed.
      let open = this.servers.length;
      for (const server of this.servers) {
        server.close(() => {
          if (--open > 0) return;
          clearTimeout(timer);
          resolve({ cut, ms: Date.now() - started });
        });
        server.closeIdleConnections();
      }
      for (const res of this.inFlight) this.closeAfter(res);
    });
    return this.done;
  }

  /** `Connection: close` when the headers are still unsent; the connection is closed once `res` finished either way. */
  private closeAfter(res: http.ServerResponse): void {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    const socket = res.socket;
    if (!socket) return;
    res.once('finish', () => setImmediate(() => socket.end()));
    res.once('close', () => {
      if (!res.writableFinished) socket.destroy();
    });
  }
}
