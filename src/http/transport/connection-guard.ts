// Bounds the connections one HTTP server holds: per client address, at most
// `maxIdlePerAddress` connections that have not carried a request yet (opened and silent, or
// still sending their first request's headers: what an idle flood is made of), and at most
// `maxConnections` in all. Over the per-address bound the oldest such connections of that address
// are closed; over the global bound the least recently used idle connections anywhere. Keep-alive
// connections that have carried requests are not capped per address (a BMC's or load balancer's
// pool of 64+ connections from one address is normal): the idle keep-alive timeout and the global
// cap bound them. A new connection is refused only when the global cap is reached and every
// other connection has a request in flight. Per-request cost is O(1); only the global cap scans.
//
// On an HTTPS server a connection is admitted as its TCP socket (so one that never finishes the
// TLS handshake counts as request-less, like a silent plain one) and known by its TLS socket too
// once the handshake is done (requests, timeouts and errors name that one).
//
// It tracks connections and closes them; it does not time anything out (listener-limits.ts
// does) and does not log (the caller's `onClose`/`onRefuse` do, rate-limited).
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ConnectionGuardOptions {
  maxIdlePerAddress: number;
  maxConnections: number;
  onClose(reason: 'idle_per_address' | 'connection_cap', address: string): void;
  onRefuse(address: string): void;
}

interface Tracked {
  socket: Socket;
  /** The TLS socket over `socket`, once its handshake is done (HTTPS listeners). */
  secure?: TLSSocket;
  address: string;
  /** Requests in flight on this connection (more than one when pipelined). */
  busy: number;
  /** Requests this connection has carried so far. */
  requests: number;
  /** Order in which connections last became idle (higher = more recent). */
  idleSince: number;
  /** The latest request and its response. */
  req?: http.IncomingMessage;
  res?: http.ServerResponse;
}

export interface ConnectionState {
  /** A request is in flight. */
  busy: boolean;
  /** Requests this connection has carried so far. */
  requests: number;
  /** The request in flight has not been received whole yet. */
  receiving: boolean;
  /** The response in flight has sent its headers. */
  responding: boolean;
}

export class ConnectionGuard {
  private readonly all = new Map<Socket, Tracked>();
  /** TLS sockets of handshaken connections in `all` (HTTPS listeners). */
  private readonly bySecure = new Map<Socket, Tracked>();
  /** Per address, the connections that have not carried a request yet, oldest first. */
  private readonly freshByAddress = new Map<string, Set<Tracked>>();
  private clock = 0;

  constructor(private readonly options: ConnectionGuardOptions) {}

  attach(server: http.Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => this.requestStarted(req, res));
    server.on('secureConnection', (secure: TLSSocket) => this.secured(secure));
  }

  counts(): { idle: number; busy: number } {
    let busy = 0;
    for (const t of this.all.values()) if (t.busy > 0) busy++;
    return { idle: this.all.size - busy, busy };
  }

  stateOf(socket: Socket): ConnectionState | undefined {
    const t = this.tracked(socket);
    if (!t) return undefined;
    const busy = t.busy > 0;
    return {
      busy,
      requests: t.requests,
      receiving: busy && t.req?.complete === false,
      responding: busy && t.res?.headersSent === true,
    };
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    const tracked: Tracked = { socket, address, busy: 0, requests: 0, idleSince: ++this.clock };
    this.all.set(socket, tracked);
    let fresh = this.freshByAddress.get(address);
    if (!fresh) this.freshByAddress.set(address, (fresh = new Set()));
    fresh.add(tracked);
    socket.once('close', () => this.forget(tracked));

    while (this.all.size > this.options.maxConnections) {
      const victim = leastRecentlyIdle(this.all.values(), tracked);
      if (!victim) {
        this.options.onRefuse(address);
        this.forget(tracked);
        socket.destroy();
        return;
      }
      this.close(victim, 'connection_cap');
    }
    this.enforceFreshCap(fresh, tracked);
  }

  private tracked(socket: Socket): Tracked | undefined {
    return this.all.get(socket) ?? this.bySecure.get(socket);
  }

  /** Links a finished TLS handshake to its TCP connection (same peer address and port, still request-less). */
  private secured(secure: TLSSocket): void {
    const fresh = this.freshByAddress.get(secure.remoteAddress ?? 'unknown');
    if (!fresh) return;
    for (const tracked of fresh) {
      if (tracked.secure || tracked.socket.remotePort !== secure.remotePort) continue;
      tracked.secure = secure;
      this.bySecure.set(secure, tracked);
      return;
    }
  }

  private requestStarted(req: http.IncomingMessage, res: http.ServerResponse): void {
    const tracked = this.tracked(req.socket);
    if (!tracked) return;
    tracked.busy++;
    if (tracked.requests++ === 0) this.unfresh(tracked);
    tracked.req = req;
    tracked.res = res;
    res.once('close', () => {
      tracked.busy = Math.max(0, tracked.busy - 1);
      if (tracked.res === res) {
        tracked.req = undefined;
        tracked.res = undefined;
      }
      if (tracked.busy === 0) tracked.idleSince = ++this.clock;
    });
  }

  /** Closes the oldest request-less connections of an address beyond the cap (a Set keeps insertion order). */
  private enforceFreshCap(fresh: Set<Tracked>, keep: Tracked): void {
    for (const victim of fresh) {
      if (fresh.size <= this.options.maxIdlePerAddress) return;
      if (victim !== keep) this.close(victim, 'idle_per_address');
    }
  }

  private unfresh(tracked: Tracked): void {
    const fresh = this.freshByAddress.get(tracked.address);
    fresh?.delete(tracked);
    if (fresh?.size === 0) this.freshByAddress.delete(tracked.address);
  }

  private close(victim: Tracked, reason: 'idle_per_address' | 'connection_cap'): void {
    this.forget(victim);
    victim.secure?.destroy();
    victim.socket.destroy();
    this.options.onClose(reason, victim.address);
  }

  private forget(tracked: Tracked): void {
    if (tracked.secure) this.bySecure.delete(tracked.secure);
    if (!this.all.delete(tracked.socket)) return;
    this.unfresh(tracked);
  }
}

function leastRecentlyIdle(candidates: Iterable<Tracked>, except: Tracked): Tracked | undefined {
  let best: Tracked | undefined;
  for (const t of candidates) {
    if (t === except || t.busy > 0) continue;
    if (!best || t.idleSince < best.idleSince) best = t;
  }
  return best;
}
