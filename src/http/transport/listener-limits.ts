// Limits of every HTTP listener the service creates: header, body, idle keep-alive and send
// timeouts, an idle-connection cap per client address and a global connection cap derived
// from the open-file limit (raised at start-up where allowed).
//
//   header timeout  the request line and headers must arrive within it (Node `headersTimeout`);
//                   also bounds a connection that never sends anything
//   body timeout    the rest of the request must arrive within it after that (Node
//                   `requestTimeout` = header + body timeout)
//   idle timeout    a keep-alive connection with no request in flight is closed after it
//                   (Node `keepAliveTimeout`)
//   send timeout    a response whose bytes wait for the client while the kernel takes none of
//                   them for this long is destroyed, like nginx's send_timeout: a client that
//                   requests an ISO and stops reading (or reads a byte a second) is let go after
//                   it (src/http/transport/send-watchdog.ts samples the socket's real progress; Node's own
//                   socket timeout fires only after about twice its value then). Node's timeout
//                   (`server.timeout`, same value) stays as the backstop for a connection with
//                   no traffic at all in either direction
//   TLS handshake   (HTTPS listeners) the handshake must finish within the header timeout (Node
//                   `handshakeTimeout`); until then the connection counts as request-less
//   half-close      a client that shuts down its sending side after its request (`shutdown(SHUT_WR)`,
//                   what `socket.end()` after the write does) still gets its answer, however long
//                   the answer takes to prepare (RFC 9112 §9.6: a half-closed connection does not
//                   mean the client lost interest). Node's default aborts such a request the moment
//                   the FIN is read, so only answers ready within the same turn of the event loop
//                   went out: the first request after a start (a database lookup, a cold cache) got
//                   none. The connection closes after that answer; a client that is gone for good is
//                   noticed when a write fails, and one that never reads is let go by the send timeout
//
// Every close is counted in metrics (src/http/transport/listener-metrics.ts) and, except ordinary idle
// keep-alive timeouts, logged at warn, rate-limited, with counts. It does not route or answer requests.
//
// Room rule (src/http/transport/, this file is its entry): the listeners and their clocks and
// caps (connection guard, open-file limit, send watchdog, socket progress, drain, TLS material).
// Its modules know no route and no representation; they import only each other, node and the
// leaf src/errors.ts.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type tls from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { ConnectionGuard } from './connection-guard.js';
import { type CloseReason, ListenerMetrics } from './listener-metrics.js';
import { connectionCapFor, raiseOpenFileLimit } from './open-file-limit.js';
import { SendWatchdog, type WatchedStream, tickFor } from './send-watchdog.js';

export interface ListenerLimits {
  /** HTTP_HEADER_TIMEOUT */
  headerTimeoutMs: number;
  /** HTTP_BODY_TIMEOUT */
  bodyTimeoutMs: number;
  /** HTTP_IDLE_TIMEOUT */
  idleTimeoutMs: number;
  /** HTTP_SEND_TIMEOUT */
  sendTimeoutMs: number;
  /** HTTP_MAX_IDLE_PER_ADDRESS */
  maxIdlePerAddress: number;
  /** HTTP_MAX_CONNECTIONS; undefined = derived from the open-file limit. */
  maxConnections: number | undefined;
}

export const DEFAULT_LISTENER_LIMITS: ListenerLimits = {
  /** Slow BMCs and iPXE send their headers in one go; 20 s is generous (nginx: 60 s, issue 15: ≤ 20 s). */
  headerTimeoutMs: 20_000,
  /** Request bodies are small JSON documents (a few MB at most); a minute is plenty on any link. */
  bodyTimeoutMs: 60_000,
  /** Above common load balancers' 60 s idle timeout, so the balancer closes first (Node's default). */
  idleTimeoutMs: 65_000,
  /** Like nginx's send_timeout: a reader that makes no progress for a minute is gone. */
  sendTimeoutMs: 60_000,
  /** Enough for a load balancer's or a BMC's connection pool; more idle ones from one address are closed, oldest first. */
  maxIdlePerAddress: 32,
  maxConnections: undefined,
};

/** How often Node checks header and request deadlines: a quarter of the header timeout, within these bounds. */
const MIN_CHECK_INTERVAL_MS = 100;
const MAX_CHECK_INTERVAL_MS = 5_000;
/** Warnings about closed or refused connections are logged at most this often (with counts). */
const WARN_INTERVAL_MS = 10_000;

/** Options for http.createServer that carry the timeouts Node enforces itself. */
export function serverOptions(limits: ListenerLimits): http.ServerOptions {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.headerTimeoutMs + limits.bodyTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.min(
      MAX_CHECK_INTERVAL_MS,
      Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(limits.headerTimeoutMs / 4)),
    ),
  };
}

export interface LimitedServer {
  /** An https.Server when created with `tls`. */
  server: http.Server;
  connectionCap: number;
  metrics: ListenerMetrics;
}

/** HTTPS options for createLimitedServer (src/http/transport/tls/tls-material.ts builds `secureContext`). */
export interface ListenerTls {
  secureContext: tls.SecureContextOptions;
}

/** Options for https.createServer: HTTP/1.1 only (no ALPN h2), the handshake bounded like headers. */
export function httpsServerOptions(limits: ListenerLimits, listenerTls: ListenerTls): https.ServerOptions {
  return {
    ...serverOptions(limits),
    ...listenerTls.secureContext,
    ALPNProtocols: ['http/1.1'],
    handshakeTimeout: limits.headerTimeoutMs,
    // the TLS socket keeps its sending side when the client's FIN arrives (see half-close above)
    allowHalfOpen: true,
  };
}

/**
 * An HTTP (or, with `listenerTls`, HTTPS) server with every limit applied. Raises the soft
 * open-file limit first (once per process is enough, repeating it is harmless) and logs the
 * effective cap at info. A second listener of the same process passes the first one's
 * `metrics` so both are counted in the same instruments.
 */
export async function createLimitedServer(
  limits: ListenerLimits,
  parts: { logger: Logger; registry: Registry; metrics?: ListenerMetrics },
  handler: http.RequestListener,
  listenerTls?: ListenerTls,
): Promise<LimitedServer> {
  const raised = await raiseOpenFileLimit();
  const softLimit = raised.after?.soft;
  const connectionCap = limits.maxConnections ?? connectionCapFor(softLimit);
  parts.logger.info(
    {
      openFileLimit: raised.after && { soft: raised.after.soft, hard: raised.after.hard },
      raisedFrom:
        raised.before && raised.after && raised.before.soft !== raised.after.soft ? raised.before.soft : undefined,
      problem: raised.problem,
      connectionCap,
      maxIdlePerAddress: limits.maxIdlePerAddress,
    },
    'connection limits',
  );
  const server: http.Server = listenerTls
    ? https.createServer(httpsServerOptions(limits, listenerTls), handler)
    : http.createServer(serverOptions(limits), handler);
  const metrics = applyListenerLimits(server, limits, connectionCap, parts);
  return { server, connectionCap, metrics };
}

/** Applies the send timeout and the connection caps to `server` (created with serverOptions()). */
export function applyListenerLimits(
  server: http.Server,
  limits: ListenerLimits,
  connectionCap: number,
  parts: { logger: Logger; registry: Registry; metrics?: ListenerMetrics },
): ListenerMetrics {
  const warnings = new RateLimitedWarnings(parts.logger);
  let metrics: ListenerMetrics | undefined; // assigned once below, read by closures created before it
  const closed = (reason: CloseReason, address: string) => {
    metrics?.closed.inc({ reason });
    // An idle keep-alive connection timing out is ordinary: counted, not warned about.
    if (reason !== 'idle_timeout') warnings.note(reason, address);
  };
  const guard = new ConnectionGuard({
    maxIdlePerAddress: limits.maxIdlePerAddress,
    maxConnections: connectionCap,
    onClose: closed,
    onRefuse: (address) => {
      metrics?.refused.inc();
      warnings.note('refused_at_connection_cap', address);
    },
  });
  if (parts.metrics) {
    metrics = parts.metrics;
    metrics.alsoCount(() => guard.counts());
  } else {
    metrics = new ListenerMetrics(parts.registry, () => guard.counts());
    metrics.limit.set(connectionCap);
  }
  guard.attach(server);
  answerHalfClosedRequests(server);

  // HTTPS: a handshake that does not finish in time, or fails (a plain-HTTP client, a bad
  // ClientHello), ends here; Node has destroyed the socket already.
  server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    if (err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') closed('handshake_timeout', address);
    else if (err.code !== 'ECONNRESET') closed('tls_handshake_failed', address);
    socket.destroy();
  });

  // The send timeout: a connection with a response in flight is watched until its last response
  // closes (several when pipelined).
  const watchdog = new SendWatchdog(tickFor(limits.sendTimeoutMs));
  const sending = new Map<Socket, { watch: WatchedStream; responses: number }>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    let entry = sending.get(socket);
    if (entry === undefined) {
      const watch = watchdog.watch(socket, { stallMs: limits.sendTimeoutMs }, () => {
        sending.delete(socket);
        closed('send_timeout', socket.remoteAddress ?? 'unknown');
        socket.destroy();
      });
      entry = { watch, responses: 0 };
      sending.set(socket, entry);
    }
    const watched = entry;
    watched.responses++;
    res.once('close', () => {
      if (--watched.responses > 0 || sending.get(socket) !== watched) return;
      watched.watch.stop();
      sending.delete(socket);
    });
  });

  // Inactivity of the socket, the backstop (Node resets it on every read and every write handed
  // to the kernel, and re-arms it once while a write is partly done).
  server.setTimeout(limits.sendTimeoutMs, (socket: Socket) => {
    const state = guard.stateOf(socket);
    const reason: CloseReason = !state
      ? 'idle_timeout'
      : state.receiving
        ? 'body_timeout'
        : state.busy
          ? 'send_timeout'
          : state.requests > 0
            ? 'idle_timeout'
            : 'header_timeout';
    closed(reason, socket.remoteAddress ?? 'unknown');
    socket.destroy();
  });

  // Node's header/request deadlines arrive here as ERR_HTTP_REQUEST_TIMEOUT; everything else is
  // answered as Node would without a listener (400, 431 for oversized headers).
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const state = guard.stateOf(socket);
    let status: string | undefined = 'HTTP/1.1 400 Bad Request';
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      closed(state?.busy ? 'body_timeout' : 'header_timeout', socket.remoteAddress ?? 'unknown');
      status = 'HTTP/1.1 408 Request Timeout';
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      status = 'HTTP/1.1 431 Request Header Fields Too Large';
    }
    if (err.code !== 'ECONNRESET' && socket.writable && !state?.responding) {
      socket.end(`${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    socket.destroy();
  });
  return metrics;
}

/**
 * A request whose client half-closed the connection is answered (the header's half-close).
 * `httpAllowHalfOpen` is how Node's HTTP server spells it (read in its socket end handler, set
 * false by the http and https Server constructors, not in @types/node): true, the response in flight
 * is marked as the connection's last instead of its request being aborted, and a connection
 * with none in flight is ended as before.
 */
function answerHalfClosedRequests(server: http.Server): void {
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

/** One warn line per kind at most every WARN_INTERVAL_MS, carrying how many happened since the last. */
class RateLimitedWarnings {
  private readonly pending = new Map<string, { count: number; addresses: Set<string> }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly logger: Logger) {}

  note(kind: string, address: string): void {
    const entry = this.pending.get(kind) ?? { count: 0, addresses: new Set<string>() };
    entry.count++;
    if (entry.addresses.size < 10) entry.addresses.add(address);
    this.pending.set(kind, entry);
    if (!this.timer) {
      this.flush();
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, WARN_INTERVAL_MS).unref();
    }
  }

  private flush(): void {
    for (const [kind, entry] of this.pending) {
      this.logger.warn(
        { reason: kind, count: entry.count, addresses: [...entry.addresses] },
        'connections closed by a listener limit',
      );
    }
    this.pending.clear();
  }
}
