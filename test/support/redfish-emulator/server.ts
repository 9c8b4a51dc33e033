// One emulated BMC on loopback: an HTTPS (or HTTP) listener in front of a BmcModel (handler.ts),
// with the transport-level faults of faults.ts applied before the model sees a request, and a log
// of every request (what a test asserts on: methods, paths, statuses, how it authenticated).
//
// With `tlsNeverCompletes`, the port is a plain TCP listener that accepts and never says a word:
// a client's TLS ClientHello goes unanswered, the way a wedged BMC web server behaves.
// Does NOT: create the guest or the certificates (the caller passes them; test-ca.ts makes them).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { FaultCounter, type Faults, isRawBody, matches } from './faults.js';
import type { EmulatedGuest } from './guest.js';
import { type Answer, BmcModel } from './handler.js';
import { emulatorProfile, type EmulatorProfile } from './profiles.js';
import { errorBody, MESSAGES } from './redfish-error.js';

export interface EmulatedBmcOptions {
  name: string;
  /** A row of profiles.ts, or its id. */
  profile: EmulatorProfile | string;
  username: string;
  password: string;
  guest: EmulatedGuest;
  /** Certificate chain and key (PEM); without them the BMC speaks plain HTTP. */
  tls?: { certPem: string; keyPem: string };
  host?: string;
  port?: number;
  macs?: string[];
  serialNumber?: string;
  /** ComputerSystem.UUID; default random. */
  uuid?: string;
  faults?: Faults;
  /** Shortens the profile's power-on 409 window after a power-off (tests). */
  powerOnConflictAfterOffMs?: number;
}

export interface RequestRecord {
  at: Date;
  method: string;
  path: string;
  status: number | 'hung' | 'reset';
  auth: 'basic' | 'session' | 'none';
  /** The JSON body sent, when there was one (a `Password` member is masked). */
  body?: unknown;
}

export interface EmulatedBmc {
  name: string;
  /** `https://127.0.0.1:<port>` */
  origin: string;
  /** `<origin>/redfish/v1` */
  rootUrl: string;
  /** `<origin>/redfish/v1/Systems/<id>` */
  systemUrl: string;
  model: BmcModel;
  guest: EmulatedGuest;
  requests: RequestRecord[];
  /** Replaces the faults (their counters start again). */
  setFaults(faults: Faults): void;
  /** Times a counted fault struck. */
  faultCount(name: 'serverErrors' | 'resetConnections' | 'hang'): number;
  /** Stops listening, drops hung connections; the guest stays (close it yourself). */
  close(): Promise<void>;
}

/** The huge-JSON fault streams in pieces of this size (the client must stop reading, not buffer it). */
const HUGE_CHUNK_BYTES = 64 * 1024;

export async function startEmulatedBmc(options: EmulatedBmcOptions): Promise<EmulatedBmc> {
  const profile = typeof options.profile === 'string' ? emulatorProfile(options.profile) : options.profile;
  let faults: Faults = options.faults ?? {};
  const counter = new FaultCounter();
  const model = new BmcModel({
    name: options.name,
    profile,
    username: options.username,
    password: options.password,
    guest: options.guest,
    ...(options.macs ? { macs: options.macs } : {}),
    ...(options.serialNumber ? { serialNumber: options.serialNumber } : {}),
    ...(options.uuid ? { uuid: options.uuid } : {}),
    ...(options.powerOnConflictAfterOffMs !== undefined
      ? { powerOnConflictAfterOffMs: options.powerOnConflictAfterOffMs }
      : {}),
    faults: () => faults,
  });
  const requests: RequestRecord[] = [];
  const sockets = new Set<net.Socket>();
  const host = options.host ?? '127.0.0.1';

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const path = req.url ?? '/';
        const raw = Buffer.concat(chunks);
        const authKind = model.authenticate(req.headers) ?? 'none';
        const record: RequestRecord = { at: new Date(), method, path, status: 0, auth: authKind, ...bodyOf(raw) };
        requests.push(record);
        if (counter.take('hang', faults.hang, method, path)) {
          record.status = 'hung';
          return; // never answered; the socket stays open until the client gives up or close()
        }
        if (counter.take('resetConnections', faults.resetConnections, method, path)) {
          record.status = 'reset';
          // A TCP RST where the socket allows it (plain TCP), an abrupt close otherwise (TLS): either way
          // the client sees ECONNRESET / "socket hang up" before any response.
          try {
            req.socket.resetAndDestroy();
          } catch {
            req.socket.destroy();
          }
          return;
        }
        if (counter.take('serverErrors', faults.serverErrors, method, path)) {
          const status = faults.serverErrors?.status ?? 503;
          record.status = status;
          send(res, {
            status,
            body: errorBody(
              MESSAGES.generic(
                'Base.1.8.ServiceTemporarilyUnavailable',
                'The service is temporarily unavailable. Retry in a few seconds.',
              ),
            ),
          });
          return;
        }
        if (method === 'GET' && faults.malformedJson && matches(faults.malformedJson.match, method, path)) {
          record.status = 200;
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end('{"@odata.id": "/redfish/v1", "Name": "Root Service", "Systems": {"@odata.id": ');
          return;
        }
        if (method === 'GET' && faults.hugeJson && matches(faults.hugeJson.match, method, path)) {
          record.status = 200;
          streamHuge(res, faults.hugeJson.bytes);
          return;
        }
        if (method === 'GET' && faults.endlessBody && matches(faults.endlessBody.match, method, path)) {
          record.status = 200;
          streamEndless(res);
          return;
        }
        if (faults.slowPatch && method === 'PATCH' && matches(faults.slowPatch.match, method, path)) {
          await new Promise((resolve) => setTimeout(resolve, faults.slowPatch?.ms ?? 0));
          if (res.destroyed || req.socket.destroyed) {
            record.status = 'hung'; // the client gave up first
            return;
          }
        }
        let answer: Answer;
        try {
          answer = await model.handle(method, path, req.headers, raw);
        } catch (err) {
          answer = {
            status: 500,
            body: errorBody(MESSAGES.generic('Base.1.8.InternalError', `emulator failure: ${String(err)}`)),
          };
        }
        const rewrite = faults.rewrite?.find((r) => matches(r.match, method, path));
        if (rewrite) answer = { ...answer, status: rewrite.status ?? answer.status, body: rewrite.body(answer.body) };
        record.status = answer.status;
        send(res, answer);
      })();
    });
  };

  let server: net.Server;
  if (faults.tlsNeverCompletes) {
    server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.resume(); // read the ClientHello, answer nothing
    });
  } else if (options.tls) {
    server = https.createServer({ cert: options.tls.certPem, key: options.tls.keyPem }, onRequest);
  } else {
    server = http.createServer(onRequest);
  }
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  const origin = `${options.tls || faults.tlsNeverCompletes ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return {
    name: options.name,
    origin,
    rootUrl: `${origin}/redfish/v1`,
    systemUrl: `${origin}${model.systemPath}`,
    model,
    guest: options.guest,
    requests,
    setFaults(next: Faults) {
      faults = next;
      counter.reset();
    },
    faultCount: (name) => counter.count(name),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function send(res: http.ServerResponse, answer: Answer): void {
  const headers: Record<string, string> = { 'OData-Version': '4.0', ...(answer.headers ?? {}) };
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  const text = isRawBody(answer.body) ? answer.body.raw : JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** A valid JSON document of exactly `bytes` bytes (`{"Pad": "xxx…"}`), written as fast as the client reads. */
function streamHuge(res: http.ServerResponse, bytes: number): void {
  const open = '{"Pad": "';
  const close = '"}';
  const total = Math.max(bytes, open.length + close.length);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(total) });
  res.on('error', () => undefined);
  res.write(open);
  const chunk = 'x'.repeat(HUGE_CHUNK_BYTES);
  let left = total - open.length - close.length;
  const pump = (): void => {
    while (left > 0) {
      const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
      left -= piece.length;
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end(close);
  };
  pump();
}

/** `{"Pad": "xxx…` for as long as the client reads, never finished (chunked: no length to stop at). */
function streamEndless(res: http.ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.on('error', () => undefined);
  res.write('{"Pad": "');
  const chunk = 'x'.repeat(HUGE_CHUNK_BYTES);
  const pump = (): void => {
    while (!res.destroyed) {
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

function bodyOf(raw: Buffer): { body?: unknown } {
  if (raw.length === 0) return {};
  try {
    const body = JSON.parse(raw.toString('utf8')) as unknown;
    if (body && typeof body === 'object' && 'Password' in body) return { body: { ...body, Password: '[masked]' } };
    return { body };
  } catch {
    return { body: '(not JSON)' };
  }
}
