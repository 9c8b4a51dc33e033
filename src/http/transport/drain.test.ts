// Graceful drain over real loopback HTTP: streams in flight finish with every byte, idle
// keep-alive connections are closed, new connections are refused, responses that start during
// the drain say `Connection: close`, /health answers 503 at once, and the grace period cuts
// what is still running. The same under TLS (a certificate made by openssl) is drain-tls.tools.test.ts.
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { Drain } from './drain.js';
import { healthRoutes } from '../face/routes/health.js';

const CHUNK = Buffer.alloc(64 * 1024, 0x5a);
const CHUNKS = 32;

interface Gate {
  wait: Promise<void>;
  open(): void;
}
function gate(): Gate {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

interface Fixture {
  server: http.Server;
  drain: Drain;
  port: number;
  /** Opened by the test: the /stream handler writes its second half and ends, /late answers. */
  release: Gate;
  /** Resolves when a /stream handler has written its first half. */
  streaming: Promise<void>;
  /** Resolves when a /late handler has been called. */
  lateArrived: Promise<void>;
}

let fixture: Fixture | undefined;
afterEach(async () => {
  fixture?.release.open();
  fixture?.server.closeAllConnections();
  fixture?.server.close();
  fixture = undefined;
});

async function start(): Promise<Fixture> {
  const release = gate();
  const started = gate();
  const late = gate();
  const server = http.createServer();
  const drain = new Drain(server);
  const app = express();
  app.use(healthRoutes([], () => drain.isDraining()));
  app.get('/stream', (_req, res) => {
    res.writeHead(200, { 'Content-Length': String(CHUNK.length * CHUNKS) });
    for (let i = 0; i < CHUNKS / 2; i++) res.write(CHUNK);
    started.open();
    void release.wait.then(() => {
      for (let i = CHUNKS / 2; i < CHUNKS; i++) res.write(CHUNK);
      res.end();
    });
  });
  app.get('/late', (_req, res) => {
    late.open();
    void release.wait.then(() => res.send('late'));
  });
  app.get('/small', (_req, res) => res.send('ok'));
  server.on('request', app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fixture = {
    server,
    drain,
    port: (server.address() as net.AddressInfo).port,
    release,
    streaming: started.wait,
    lateArrived: late.wait,
  };
  return fixture;
}

/** A raw keep-alive connection that collects everything it receives and notes when it closes. */
function rawClient(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (b: Buffer) => chunks.push(b));
  socket.on('error', () => undefined);
  const closed = once(socket, 'close').then(() => Buffer.concat(chunks));
  return {
    socket,
    closed,
    received: () => Buffer.concat(chunks),
    send: (target: string) => socket.write(`GET ${target} HTTP/1.1\r\nHost: t\r\nConnection: keep-alive\r\n\r\n`),
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

function bodyOf(raw: Buffer): Buffer {
  return raw.subarray(raw.indexOf('\r\n\r\n') + 4);
}

describe('graceful drain', () => {
  it('lets a stream in flight finish, closes idle keep-alive connections and refuses new ones', async () => {
    const f = await start();
    const idle = rawClient(f.port);
    idle.send('/small');
    await until(() => idle.received().toString().endsWith('ok'));
    expect(idle.received().toString()).toMatch(/connection: keep-alive/i);

    const streamer = rawClient(f.port);
    streamer.send('/stream');
    await f.streaming;

    const drained = f.drain.drain(30_000);
    expect(f.drain.isDraining()).toBe(true);
    await idle.closed; // the idle keep-alive connection is closed at once

    const refused = await new Promise<string>((resolve) => {
      const s = net.connect(f.port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');

    f.release.open();
    const raw = await streamer.closed; // closed by the server once the response finished
    const body = bodyOf(raw);
    expect(body.length).toBe(CHUNK.length * CHUNKS);
    expect(body.every((b) => b === 0x5a)).toBe(true);
    expect((await drained).cut).toBe(0);
  });

  it('answers a response that starts during the drain with Connection: close', async () => {
    const f = await start();
    const c = rawClient(f.port);
    c.send('/late'); // the handler waits for the gate before it writes anything
    await f.lateArrived;
    const drained = f.drain.drain(30_000);
    f.release.open();
    const raw = (await c.closed).toString();
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
    expect(raw).toMatch(/\r\nconnection: close\r\n/i);
    expect(raw.endsWith('late')).toBe(true);
    expect((await drained).cut).toBe(0);
  });

  it('fails readiness at once: /health on a connection that is mid-request answers 503 draining', async () => {
    const f = await start();
    const c = rawClient(f.port);
    c.send('/small');
    await until(() => c.received().toString().endsWith('ok'));
    expect(f.drain.isDraining()).toBe(false);
    // Half a request keeps the connection busy across the start of the drain.
    c.socket.write('GET /health HTTP/1.1\r\nHost: t\r\n');
    await new Promise((r) => setTimeout(r, 50));
    const drained = f.drain.drain(30_000);
    c.socket.write('\r\n');
    const raw = (await c.closed).toString();
    const second = raw.slice(raw.indexOf('HTTP/1.1', 10));
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toContain('"status":"draining"');
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    await drained;
  });

  it('cuts the streams still running when the grace period ends', async () => {
    const f = await start();
    const streamer = rawClient(f.port);
    streamer.send('/stream');
    await f.streaming;
    const result = await f.drain.drain(100); // the gate stays closed: the stream cannot finish
    expect(result.cut).toBe(1);
    const raw = await streamer.closed;
    expect(bodyOf(raw).length).toBeLessThan(CHUNK.length * CHUNKS);
  });

  it('is idempotent: a second drain() returns the first one', async () => {
    const f = await start();
    const a = f.drain.drain(1000);
    const b = f.drain.drain(5);
    expect(b).toBe(a);
    expect((await a).cut).toBe(0);
  });
});

describe('Drain over two listeners (HTTPS and the plain iPXE port)', () => {
  it('waits for a stream on the second listener and stops both from accepting', async () => {
    const f = await start();
    const release = gate();
    const second = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': String(CHUNK.length * 2) });
      res.write(CHUNK);
      void release.wait.then(() => res.end(CHUNK));
    });
    f.drain.add(second);
    second.listen(0, '127.0.0.1');
    await once(second, 'listening');
    const secondPort = (second.address() as net.AddressInfo).port;
    try {
      const response = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get({ port: secondPort, host: '127.0.0.1', path: '/' }, resolve).on('error', reject),
      );
      const body: Buffer[] = [];
      response.on('data', (c: Buffer) => body.push(c));
      const ended = once(response, 'end');
      let drained = false;
      const done = f.drain.drain(10_000).then((r) => {
        drained = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(drained).toBe(false); // the second listener's stream holds the drain open
      await expect(
        new Promise((resolve, reject) =>
          net.connect(secondPort, '127.0.0.1', () => resolve('open')).on('error', reject),
        ),
      ).rejects.toThrow(/ECONNREFUSED/);
      release.open();
      await ended;
      expect(Buffer.concat(body).length).toBe(CHUNK.length * 2);
      expect((await done).cut).toBe(0);
    } finally {
      release.open();
      second.closeAllConnections();
      second.close();
    }
  });
});
