// The listener limits on an HTTPS listener (createLimitedServer with TLS) over real loopback
// sockets: a TCP connection that never starts or finishes its TLS handshake is closed by the
// handshake timeout and counted; such connections count against the per-address idle cap like
// request-less plain ones; a TLS client that requests a stream and stops reading is closed by
// the send timeout (the guard knows the TLS socket as its TCP connection); a plain-HTTP client
// on the TLS port is counted as a failed handshake; a TLS client that half-closes after its
// request gets its answer; well-behaved TLS clients keep getting answers.
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../logger.js';
import { HAVE_OPENSSL } from '../../../../test/support/probes.js';
import { unavailable } from '../../../../test/support/requirements.js';
import { type ListenerLimits, type LimitedServer, createLimitedServer } from '../listener-limits.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from './test-support/certificates.js';
import { loadTlsMaterial } from './tls-material.js';

const missing = unavailable({ openssl: HAVE_OPENSSL });
const SHORT: ListenerLimits = {
  headerTimeoutMs: 500,
  bodyTimeoutMs: 500,
  idleTimeoutMs: 500,
  sendTimeoutMs: 800,
  maxIdlePerAddress: 3,
  maxConnections: undefined,
};
/** Upper bound for any close waited for: far above every limit, never a timing assertion. */
const WAIT_BOUND_MS = 10_000;

describe.skipIf(missing)('listener limits on an HTTPS listener', () => {
  let dir: string;
  let ca: TestCa;
  let leaf: TestLeaf;
  const servers: LimitedServer[] = [];
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'listener-tls-'));
    ca = makeCa(dir);
    leaf = makeLeaf(dir, ca, 'server');
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const l of servers.splice(0)) {
      l.server.closeAllConnections();
      await new Promise<void>((resolve) => l.server.close(() => resolve()));
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function start(): Promise<{ port: number; registry: Registry }> {
    const registry = new Registry();
    const material = await loadTlsMaterial({ certFile: leaf.certFile, keyFile: leaf.keyFile, minVersion: 'TLSv1.2' });
    const limited = await createLimitedServer(
      SHORT,
      { logger: createLogger('silent'), registry },
      (req, res) => {
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
        if (req.url === '/after-fin') {
          // answered only once the client's close_notify and FIN were read (its half-close)
          req.socket.once('end', () => res.end('after fin'));
          return;
        }
        res.end('ok');
      },
      material,
    );
    servers.push(limited);
    await new Promise<void>((resolve) => limited.server.listen(0, '127.0.0.1', () => resolve()));
    return { port: (limited.server.address() as AddressInfo).port, registry };
  }

  function tcp(port: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(s));
      s.once('error', reject);
      sockets.push(s);
    });
  }

  function closed(s: net.Socket): Promise<void> {
    return new Promise((resolve, reject) => {
      s.on('error', () => undefined);
      s.on('data', () => undefined);
      const timer = setTimeout(() => reject(new Error('connection still open past the bound')), WAIT_BOUND_MS);
      s.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async function count(registry: Registry, reason: string): Promise<number> {
    const metric = await registry.getSingleMetric('bootsmith_http_connections_closed_total')!.get();
    return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
  }

  function get(port: number, pathName = '/'): Promise<string> {
    return new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: pathName, ca: ca.certPem, agent: false }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
  }

  it('closes a TCP connection that never starts its handshake, and one that stops halfway', async () => {
    const { port, registry } = await start();
    const silent = await tcp(port);
    await closed(silent);
    // Half a handshake: a TLS client whose socket stops after the ClientHello is written.
    const half = await tcp(port);
    half.write(Buffer.from('160301', 'hex')); // a record header and no more
    await closed(half);
    expect(await count(registry, 'handshake_timeout')).toBe(2);
    expect(await get(port)).toBe('ok');
  });

  it('counts connections without a finished handshake against the per-address idle cap', async () => {
    const { port, registry } = await start();
    const first = await tcp(port);
    const firstClosed = closed(first);
    for (let i = 0; i < SHORT.maxIdlePerAddress; i++) await tcp(port);
    await firstClosed; // the oldest of four request-less connections from 127.0.0.1
    expect(await count(registry, 'idle_per_address')).toBeGreaterThanOrEqual(1);
  });

  it('closes a TLS client that requests a stream and stops reading (send timeout)', async () => {
    const { port, registry } = await start();
    const client = tls.connect({ host: '127.0.0.1', port, ca: ca.certPem, servername: 'localhost' });
    sockets.push(client);
    await new Promise((resolve, reject) => client.once('secureConnect', resolve).once('error', reject));
    client.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
    client.pause(); // never reads: the server's writes stop making progress
    // A paused client does not notice the close itself (it reads nothing, not even the EOF): wait for the count.
    const deadline = Date.now() + WAIT_BOUND_MS;
    while ((await count(registry, 'send_timeout')) === 0) {
      if (Date.now() > deadline) throw new Error('send timeout not counted within the bound');
      await new Promise((r) => setTimeout(r, 50));
    }
    client.resume();
    await closed(client); // reading again, it sees the server's close
    expect(await count(registry, 'send_timeout')).toBe(1);
  });

  it('answers a TLS client that shut down its sending side after its request, once that was read', async () => {
    const { port } = await start();
    const client = tls.connect({ host: '127.0.0.1', port, ca: ca.certPem, servername: 'localhost' });
    sockets.push(client);
    let text = '';
    client.on('data', (c: Buffer) => (text += c.toString('latin1')));
    const ended = closed(client);
    client.once('secureConnect', () => client.end('GET /after-fin HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    await ended;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.endsWith('\r\n\r\nafter fin')).toBe(true);
  });

  it('counts a plain-HTTP client on the TLS port as a failed handshake', async () => {
    const { port, registry } = await start();
    const s = await tcp(port);
    s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed(s);
    expect(await count(registry, 'tls_handshake_failed')).toBe(1);
    expect(await get(port)).toBe('ok');
  });
});
