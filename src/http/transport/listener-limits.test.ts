// The listener limits over real loopback sockets: each hostile client (silent, half headers,
// trickling body, idle keep-alive, a reader that stops reading, too many idle connections from
// one address, more connections than the cap) is closed by its limit and counted, while a
// well-behaved client keeps getting answers; a client that half-closes after its request gets it.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createLogger } from '../../logger.js';
import { DEFAULT_LISTENER_LIMITS, type ListenerLimits, applyListenerLimits, serverOptions } from './listener-limits.js';

const SHORT: ListenerLimits = {
  headerTimeoutMs: 400,
  bodyTimeoutMs: 400,
  idleTimeoutMs: 400,
  sendTimeoutMs: 600,
  maxIdlePerAddress: 4,
  maxConnections: undefined,
};
/** Upper bound for any close these tests wait for: far above every limit, so never a timing assertion. */
const WAIT_BOUND_MS = 10_000;

interface Running {
  server: http.Server;
  port: number;
  registry: Registry;
  logs: string[];
  /** Requests to `/hold` the server has started and not yet answered. */
  held: http.ServerResponse[];
}

const running: Running[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const r of running.splice(0)) {
    r.server.closeAllConnections();
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
  }
});

/**
 * A server whose `/stream` never ends (writes with backpressure), `/hold` answers only when the
 * test ends it (`held`), `/after-fin` answers once the client's FIN arrived, and `/echo` reads the body.
 */
async function start(limits: ListenerLimits, connectionCap = 10_000): Promise<Running> {
  const registry = new Registry();
  const logs: string[] = [];
  const held: http.ServerResponse[] = [];
  const logger = createLogger('info', { write: (line: string) => logs.push(line) });
  const server = http.createServer(serverOptions(limits), (req, res) => {
    if (req.url === '/stream') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      return;
    }
    if (req.url === '/hold') {
      held.push(res);
      return;
    }
    if (req.url === '/after-fin') {
      // answered only once the server has read the client's FIN (its half-close)
      req.socket.once('end', () => res.end('after fin'));
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => res.end(`ok ${Buffer.concat(parts).length}`));
  });
  applyListenerLimits(server, limits, connectionCap, { logger, registry });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const r = { server, port: (server.address() as AddressInfo).port, registry, logs, held };
  running.push(r);
  return r;
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
    sockets.push(s);
  });
}

/** Resolves with what the server sent once it closes the connection; rejects past WAIT_BOUND_MS. */
function closedByServer(s: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    s.on('data', (c: Buffer) => (text += c.toString('latin1')));
    s.on('error', () => undefined);
    const timer = setTimeout(() => reject(new Error('connection still open past the bound')), WAIT_BOUND_MS);
    s.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

async function closedCount(registry: Registry, reason: string): Promise<number> {
  const metric = await registry.getSingleMetric('bootsmith_http_connections_closed_total')!.get();
  return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

async function wellBehaved(port: number, body = 'hello'): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', body });
  return res.text();
}

describe('listener timeouts', () => {
  it('closes a connection that sends nothing, with 408, and counts it', async () => {
    const r = await start(SHORT);
    const s = await connect(r.port);
    expect(await closedByServer(s)).toMatch(/^HTTP\/1\.1 408 /);
    expect(await closedCount(r.registry, 'header_timeout')).toBe(1);
    expect(r.logs.join('')).toMatch(/"reason":"header_timeout","count":1.*connections closed by a listener limit/);
    expect(await wellBehaved(r.port)).toBe('ok 5');
  });

  it('closes a connection that sends half its headers', async () => {
    const r = await start(SHORT);
    const s = await connect(r.port);
    s.write('GET /echo HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const closing = closedByServer(s);
    const trickle = setInterval(() => s.writable && s.write('a'), 50);
    try {
      expect(await closing).toMatch(/408/);
    } finally {
      clearInterval(trickle);
    }
    expect(await closedCount(r.registry, 'header_timeout')).toBe(1);
  });

  it('closes a connection that trickles its body', async () => {
    const r = await start(SHORT);
    const s = await connect(r.port);
    s.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
    const closing = closedByServer(s);
    const trickle = setInterval(() => s.writable && s.write('b'), 50);
    try {
      await closing;
    } finally {
      clearInterval(trickle);
    }
    expect(await closedCount(r.registry, 'body_timeout')).toBe(1);
    expect(await wellBehaved(r.port)).toBe('ok 5');
  });

  it('closes an idle keep-alive connection after its response', async () => {
    const r = await start(SHORT);
    const s = await connect(r.port);
    const closing = closedByServer(s);
    s.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await closing).toMatch(/^HTTP\/1\.1 200 .*ok 0$/s);
    expect(await closedCount(r.registry, 'idle_timeout')).toBe(1);
    expect(r.logs.join('')).not.toContain('"reason":"idle_timeout"'); // ordinary: counted, not warned about
  });

  it('destroys a stream whose client stopped reading, and counts it as a send timeout', async () => {
    const r = await start(SHORT);
    const s = await connect(r.port);
    s.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
    // Read the first bytes, then stop reading for good.
    await new Promise<void>((resolve) => s.once('data', () => resolve()));
    s.pause();
    const closed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('stream still open past the bound')), WAIT_BOUND_MS);
      s.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      s.on('error', () => undefined);
    });
    // The server side is gone even though this client never reads again: poll the metric.
    for (let i = 0; i < 100 && (await closedCount(r.registry, 'send_timeout')) === 0; i++)
      await new Promise((r2) => setTimeout(r2, 100));
    expect(await closedCount(r.registry, 'send_timeout')).toBe(1);
    s.resume();
    await closed;
    expect(await wellBehaved(r.port)).toBe('ok 5');
  });

  it('destroys a stream whose client stopped reading but keeps sending bytes (which re-arm Node’s own socket timeout)', async () => {
    const r = await start({ ...SHORT, headerTimeoutMs: 20_000 }); // the trickled header must not end it first
    const s = await connect(r.port);
    s.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>((resolve) => s.once('data', () => resolve()));
    s.pause();
    // a pipelined request whose header never ends: a byte every 100 ms reaches the server
    s.write('GET /echo HTTP/1.1\r\nHost: x\r\nX-Trickle: ');
    const trickle = setInterval(() => s.writable && s.write('a'), 100);
    try {
      for (let i = 0; i < 100 && (await closedCount(r.registry, 'send_timeout')) === 0; i++)
        await new Promise((r2) => setTimeout(r2, 100));
      expect(await closedCount(r.registry, 'send_timeout')).toBe(1);
    } finally {
      clearInterval(trickle);
    }
    expect(await wellBehaved(r.port)).toBe('ok 5');
  });

  it('has defaults within the issue bounds', () => {
    expect(DEFAULT_LISTENER_LIMITS.headerTimeoutMs).toBeLessThanOrEqual(20_000);
    expect(DEFAULT_LISTENER_LIMITS.sendTimeoutMs).toBeLessThanOrEqual(60_000);
    const options = serverOptions(DEFAULT_LISTENER_LIMITS);
    expect(options.headersTimeout).toBe(20_000);
    expect(options.requestTimeout).toBeGreaterThan(0);
  });
});

describe('half-closed requests', () => {
  it('answers a request whose client shut down its sending side, after the FIN was read', async () => {
    const r = await start(SHORT);
    const s = await connect(r.port);
    const answer = closedByServer(s);
    s.end('GET /after-fin HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toMatch(/\r\nContent-Length: 9\r\n/i);
    expect(text.endsWith('\r\n\r\nafter fin')).toBe(true);
  });

  it('answers a held request of a half-closed connection when its answer is ready, then closes', async () => {
    const r = await start({ ...SHORT, sendTimeoutMs: 20_000 });
    const s = await connect(r.port);
    const answer = closedByServer(s);
    s.end('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 100 && r.held.length === 0; i++) await new Promise((r2) => setTimeout(r2, 20));
    await new Promise((r2) => setTimeout(r2, 200)); // well after the FIN (the test above proves that case alone)
    r.held[0]!.end('held');
    expect(await answer).toMatch(/^HTTP\/1\.1 200 .*\r\n\r\nheld$/s);
  });

  it('closes a connection half-closed in the middle of a request body, with an answer', async () => {
    const r = await start(SHORT);
    const s = await connect(r.port);
    const answer = closedByServer(s);
    s.end('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nshort');
    expect(await answer).toMatch(/^HTTP\/1\.1 (400|408) /);
    expect(await wellBehaved(r.port)).toBe('ok 5');
  });
});

describe('connection caps', () => {
  const LONG: ListenerLimits = { ...DEFAULT_LISTENER_LIMITS, maxIdlePerAddress: 4 };

  it('keeps at most maxIdlePerAddress idle connections per address, closing the oldest first', async () => {
    const r = await start(LONG);
    const idle: net.Socket[] = [];
    const closings: Promise<string>[] = [];
    for (let i = 0; i < 10; i++) {
      const s = await connect(r.port);
      idle.push(s);
      closings.push(closedByServer(s));
    }
    // The six oldest go; the four newest stay.
    await Promise.all(closings.slice(0, 6));
    expect(await closedCount(r.registry, 'idle_per_address')).toBe(6);
    for (const s of idle.slice(6)) expect(s.destroyed).toBe(false);
    expect(await wellBehaved(r.port)).toBe('ok 5');
    expect(r.logs.join('')).toMatch(/"reason":"idle_per_address".*connections closed by a listener limit/);
  });

  it('does not cap keep-alive connections that carry requests: 32 pooled connections from one address (a BMC, a load balancer) all stay', async () => {
    const r = await start(LONG); // at most 4 request-less connections per address
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const get = () =>
      new Promise<string>((resolve, reject) => {
        http
          .get({ port: r.port, host: '127.0.0.1', path: '/', agent }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
    for (let round = 0; round < 3; round++) {
      expect(await Promise.all(Array.from({ length: 32 }, get))).toEqual(Array.from({ length: 32 }, () => 'ok 0'));
    }
    const pooled = Object.values(agent.freeSockets).reduce((n, list) => n + (list?.length ?? 0), 0);
    agent.destroy();
    expect(pooled).toBe(32);
    expect(await closedCount(r.registry, 'idle_per_address')).toBe(0);
  });

  it('at the global cap closes idle connections to admit new ones, and refuses only when all are busy', async () => {
    const r = await start({ ...LONG, maxIdlePerAddress: 100 }, 3);
    const first = await connect(r.port);
    const firstClosed = closedByServer(first);
    await connect(r.port);
    await connect(r.port);
    // A fourth connection pushes out the least recently idle one, and its request is answered.
    expect(await wellBehaved(r.port)).toBe('ok 5');
    await firstClosed;
    expect(await closedCount(r.registry, 'connection_cap')).toBeGreaterThanOrEqual(1);

    // Three busy connections (each holding a request): a fourth is refused.
    const r2 = await start({ ...LONG, maxIdlePerAddress: 100 }, 3);
    const held = await Promise.all([0, 1, 2].map(() => connect(r2.port)));
    const answers = held.map((s) => closedByServer(s));
    for (const s of held) s.write('GET /hold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    // Until the server has all three requests, a connection is idle and would be closed instead.
    for (let i = 0; i < WAIT_BOUND_MS / 20 && r2.held.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(r2.held).toHaveLength(3);
    const refused = await connect(r2.port);
    await closedByServer(refused);
    const refusedCount = await (
      await r2.registry.getSingleMetric('bootsmith_http_connections_refused_total')!.get()
    ).values[0]!.value;
    expect(refusedCount).toBe(1);
    for (const res of r2.held) res.end('held');
    for (const text of await Promise.all(answers)) expect(text).toMatch(/held$/);
  });
});
