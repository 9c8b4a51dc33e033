// One HTTP(S) request to a BMC with three clocks and a size cap; the outcome is a value, not a throw.
//
//   connect   from the start until TCP is connected (name lookup included)
//   TLS       from TCP connected until the handshake is done (HTTPS only)
//   request   from then until the last byte of the response body
//   size      the body stops being read past `maxBytes`, or is not read at all when its
//             Content-Length says it is larger (`too-large`); the socket is closed either way
//
// Keep-alive per BMC (`keepAlive`, what the call worker sets): one agent per protocol in the
// thread, pooling sockets by BMC address and trust, an idle socket closed after
// KEEP_ALIVE_IDLE_MS — shorter than the idle timeouts of BMC web servers (Apache and Node: 5 s),
// so a socket is not reused just as the BMC drops it — and TLS sessions cached per BMC, so even a
// new connection resumes instead of a full handshake. On a reused socket the connect and TLS clocks
// have nothing to time: the request clock starts at once. A reset on a reused socket is a
// `connection-reset` like any other (the transport's retry policy retries it).
// Without `keepAlive` each call opens its own connection and closes it (`Connection: close`).
// Does NOT: retry, parse JSON, or know about Redfish (transport.ts does). Never sees a password:
// the caller passes finished headers and nothing here puts them in a message.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { RedfishFailure } from './errors.js';
import { KEEP_ALIVE_IDLE_MS, MAX_CACHED_TLS_SESSIONS } from './limits.js';
import type { TlsSettings } from './tls-trust.js';

export interface CallTimeouts {
  connectMs: number;
  tlsMs: number;
  requestMs: number;
}

export interface HttpCall {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Buffer;
  tls: TlsSettings;
  timeouts: CallTimeouts;
  maxBytes: number;
  /** Reuse this thread's sockets to the BMC (see the header). */
  keepAlive?: boolean;
}

export type CallOutcome =
  | { ok: true; status: number; headers: http.IncomingHttpHeaders; body: Buffer }
  | { ok: false; failure: RedfishFailure; detail: string };

/** Node error codes of a connection that could not be made. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);
/** Node error codes of a connection the peer dropped. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function classify(err: NodeJS.ErrnoException, tlsDone: boolean, https: boolean): RedfishFailure {
  const code = err.code ?? '';
  if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  if (RESET_CODES.has(code)) return 'connection-reset';
  if (https && !tlsDone) return 'tls';
  if (/CERT|SSL|TLS/.test(code)) return 'tls';
  return 'connection-reset';
}

function describe(err: NodeJS.ErrnoException): string {
  return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
}

/** The thread's keep-alive agents, made on first use (a thread that never calls holds none). */
let agents: { http: http.Agent; https: https.Agent } | undefined;

function keepAliveAgent(isHttps: boolean): http.Agent {
  const options = { keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS, maxFreeSockets: 2, scheduling: 'lifo' } as const;
  agents ??= {
    http: new http.Agent(options),
    https: new https.Agent({ ...options, maxCachedSessions: MAX_CACHED_TLS_SESSIONS }),
  };
  return isHttps ? agents.https : agents.http;
}

/**
 * One TLS context per CA bundle in the thread: building one parses every certificate of the
 * bundle, which Node would otherwise do for each connection given a `ca`.
 */
const contexts = new Map<string, tls.SecureContext>();
const MAX_CONTEXTS = 256;

function secureContextFor(ca: string): tls.SecureContext {
  let context = contexts.get(ca);
  if (!context) {
    if (contexts.size >= MAX_CONTEXTS) contexts.clear();
    context = tls.createSecureContext({ ca });
    contexts.set(ca, context);
  }
  return context;
}

export function httpCall(call: HttpCall): Promise<CallOutcome> {
  const isHttps = call.url.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    let tlsDone = !isHttps;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: CallOutcome): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(outcome);
    };
    const arm = (ms: number, failure: RedfishFailure, detail: string): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        finish({ ok: false, failure, detail });
        req.destroy();
      }, ms);
    };
    const options: https.RequestOptions = {
      method: call.method,
      headers: { ...call.headers, ...(call.body ? { 'Content-Length': String(call.body.length) } : {}) },
      agent: call.keepAlive ? keepAliveAgent(isHttps) : false,
      ...(isHttps
        ? {
            ca: call.tls.ca,
            rejectUnauthorized: call.tls.rejectUnauthorized,
            ...(call.tls.ca !== undefined ? { secureContext: secureContextFor(call.tls.ca) } : {}),
          }
        : {}),
    };
    const req = (isHttps ? https : http).request(call.url, options, (res) => {
      const declared = Number(res.headers['content-length']);
      if (declared > call.maxBytes) {
        finish({ ok: false, failure: 'too-large', detail: `the body is larger than ${call.maxBytes} bytes` });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > call.maxBytes) {
          finish({ ok: false, failure: 'too-large', detail: `the body is larger than ${call.maxBytes} bytes` });
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err: NodeJS.ErrnoException) =>
        finish({
          ok: false,
          failure: 'connection-reset',
          detail: `the response broke off: ${err.code ?? err.message}`,
        }),
      );
      res.on('aborted', () => finish({ ok: false, failure: 'connection-reset', detail: 'the response broke off' }));
      res.on('end', () =>
        finish({ ok: true, status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    arm(call.timeouts.connectMs, 'connect-timeout', `no TCP connection within ${call.timeouts.connectMs} ms`);
    req.on('socket', (socket: Socket) => {
      const connected = (): void => {
        if (isHttps) {
          arm(call.timeouts.tlsMs, 'tls-timeout', `no TLS handshake within ${call.timeouts.tlsMs} ms of connecting`);
          socket.once('secureConnect', () => {
            tlsDone = true;
            arm(
              call.timeouts.requestMs,
              'request-timeout',
              `no complete response within ${call.timeouts.requestMs} ms`,
            );
          });
        } else {
          arm(call.timeouts.requestMs, 'request-timeout', `no complete response within ${call.timeouts.requestMs} ms`);
        }
      };
      if (req.reusedSocket) {
        tlsDone = true;
        arm(call.timeouts.requestMs, 'request-timeout', `no complete response within ${call.timeouts.requestMs} ms`);
      } else if (socket.connecting) socket.once('connect', connected);
      else connected();
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ ok: false, failure: classify(err, tlsDone, isHttps), detail: describe(err) });
    });
    req.end(call.body);
  });
}
