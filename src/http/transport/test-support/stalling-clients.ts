// Test support: HTTP(S) clients that request a body and then stop taking it, as the hostile run
// of issue 23 did, plus a server-side view of when the service closed their connections.
//
//   never-read       reads the response head, then never reads from its socket again
//   byte-per-second  reads the head, then one byte a second from its TCP socket (a 1-byte read
//                    buffer: the kernel's receive window stays shut, as with recv(1) in a loop)
//   steady           reads `bytesPerSecond`, in 16 KiB steps (a slow but live client)
//
// Every client is a raw TCP socket bound to its own `localAddress` (loopback has 127.0.0.0/8);
// HTTPS runs TLS over that socket (through a duplex), so the rate applies to ciphertext on the wire.
// Does NOT: assert anything, parse more of HTTP than the status line and the end of the head.
import type http from 'node:http';
import net from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';

export type StallMode = 'never-read' | 'byte-per-second' | { steady: number };

export interface StallingClient {
  /** The response's status code (0 when the connection closed before a head). */
  status: number;
  /** performance.now() when the head had arrived and the client changed pace. */
  headAt: number;
  /** `address:port` of the client's end: the server sees the connection from it. */
  local: string;
  /** Body and head bytes taken so far (plaintext). */
  received(): number;
  /** Resolves when the client's socket closed. */
  closed: Promise<void>;
  /** From now on reads as fast as it can (to see whether the server ended the body short). */
  fast(): void;
  destroy(): void;
}

const FAST_BUFFER_BYTES = 64 * 1024;
const STEADY_STEP_BYTES = 16 * 1024;
/** Bound on waiting for a response head. */
const HEAD_BOUND_MS = 20_000;

/**
 * Opens a connection from `localAddress` to `port`, sends `GET path`, waits for the head, then
 * reads at `mode`'s pace. With `tlsCa`, speaks HTTPS (verifying against that CA).
 */
export function stallingGet(options: {
  port: number;
  path: string;
  localAddress: string;
  mode: StallMode;
  tlsCa?: string;
  headers?: Record<string, string>;
}): Promise<StallingClient> {
  const { mode } = options;
  let pace: 'fast' | 'byte' | 'paused' | 'steady' = 'fast';
  let received = 0;
  let onPlain: (chunk: Buffer) => void = () => undefined;
  const one = Buffer.alloc(1);
  const step = Buffer.alloc(STEADY_STEP_BYTES);
  const fast = Buffer.alloc(FAST_BUFFER_BYTES);
  let timer: NodeJS.Timeout | undefined;
  const later = (ms: number) => {
    timer = setTimeout(() => {
      timer = undefined;
      if (!raw.destroyed) raw.resume();
    }, ms);
  };
  const raw = net.connect({
    port: options.port,
    host: '127.0.0.1',
    localAddress: options.localAddress,
    onread: {
      buffer: () => (pace === 'byte' ? one : pace === 'steady' ? step : fast),
      callback: (bytes: number, buffer: Uint8Array): boolean => {
        const chunk = Buffer.from(buffer.subarray(0, bytes)); // the buffer is reused for the next read
        if (options.tlsCa === undefined) onPlain(chunk);
        else wire.push(chunk);
        if (pace === 'paused') return false;
        if (pace === 'byte') {
          later(1_000);
          return false;
        }
        if (pace === 'steady') {
          later(Math.max(1, Math.round((1_000 * bytes) / (mode as { steady: number }).steady)));
          return false;
        }
        return true; // keep reading
      },
    },
  });
  raw.on('error', () => undefined);
  // TLS over the raw socket: ciphertext comes in at the raw socket's pace.
  const wire = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      if (raw.destroyed) done();
      else raw.write(chunk, () => done());
    },
    final(done) {
      raw.end();
      done();
    },
  });
  raw.on('close', () => wire.push(null));
  const closed = new Promise<void>((resolve) => raw.once('close', () => resolve()));
  const request =
    `GET ${options.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    Object.entries(options.headers ?? {})
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';

  return new Promise<StallingClient>((resolve, reject) => {
    let head = '';
    let settled = false;
    const bound = setTimeout(
      () => fail(new Error(`no response head for ${options.path} within ${HEAD_BOUND_MS} ms`)),
      HEAD_BOUND_MS,
    );
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(bound);
      raw.destroy();
      reject(err);
    };
    onPlain = (chunk) => {
      received += chunk.length;
      if (settled) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      settled = true;
      clearTimeout(bound);
      pace = mode === 'never-read' ? 'paused' : mode === 'byte-per-second' ? 'byte' : 'steady';
      if (pace === 'paused') raw.pause(); // and its read callback pauses it again after a read in flight
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        headAt: performance.now(),
        local: `${raw.localAddress ?? ''}:${raw.localPort ?? 0}`,
        received: () => received,
        closed,
        fast() {
          pace = 'fast';
          if (timer) clearTimeout(timer);
          timer = undefined;
          if (!raw.destroyed) raw.resume();
        },
        destroy() {
          if (timer) clearTimeout(timer);
          secure?.destroy();
          raw.destroy();
        },
      });
    };
    raw.once('close', () => fail(new Error(`connection closed before a response head for ${options.path}`)));
    let secure: tls.TLSSocket | undefined;
    raw.once('connect', () => {
      if (options.tlsCa === undefined) {
        raw.write(request);
        return;
      }
      secure = tls.connect({ socket: wire, ca: options.tlsCa, servername: 'localhost' });
      secure.on('error', () => undefined);
      secure.on('data', (chunk: Buffer) => onPlain(chunk));
      secure.once('secureConnect', () => secure!.write(request));
    });
    raw.once('error', (err) => fail(err));
  });
}

/**
 * When the server closed each connection it accepted, by the client's `address:port` (server-side
 * observation: the server's own socket closing, not what a stalled client notices).
 */
export function serverSideCloses(server: http.Server): (client: string) => Promise<number> {
  const closes = new Map<string, Promise<number>>();
  server.on('connection', (socket: net.Socket) => {
    const at = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
    closes.set(`${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`, at);
  });
  return (client) => {
    const known = closes.get(client);
    if (known === undefined) throw new Error(`the server never saw a connection from ${client}`);
    return known;
  };
}
