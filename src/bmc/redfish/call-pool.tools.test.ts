// The Redfish call worker on the real path (HTTPS over loopback, a test CA): a BMC's calls share
// one keep-alive connection, a new connection after the idle close resumes the TLS session, the
// answer comes back parsed with the headers the transport reads, the line of waiting calls is
// bounded (one more fails as `busy`, a call that never gets a slot fails within its connect
// clock), and a worker that ends fails its calls instead of leaving them hanging.
import { mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates, type TestCertificates } from '../../../test/support/redfish-emulator/index.js';
import { HAVE_OPENSSL } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { CallPool } from './call-pool.js';
import type { HttpCall } from './http-call.js';
import { KEEP_ALIVE_IDLE_MS } from './limits.js';

const CLOCKS = { connectMs: 2_000, tlsMs: 5_000, requestMs: 5_000 };

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('the Redfish call worker (call-pool.ts)', () => {
  let dir: string;
  let certs: TestCertificates;
  let server: https.Server;
  let origin: string;
  const handshakes: { resumed: boolean }[] = [];
  const authorizations: (string | undefined)[] = [];
  let hang = false;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bmc-call-pool-'));
    certs = makeTestCertificates(dir);
    server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
      authorizations.push(req.headers.authorization);
      if (hang) return;
      const delayMs = req.url?.endsWith('/slow') ? KEEP_ALIVE_IDLE_MS + 1_500 : 0;
      setTimeout(() => answer(res), delayMs);
    });
    const answer = (res: http.ServerResponse): void => {
      const body = JSON.stringify({ Id: '1', Name: 'System', Members: [1, 2, 3], Nul: 'a\u0000b' });
      res.writeHead(200, { 'Content-Type': 'application/json', ETag: 'W/"7"', Allow: 'GET, PATCH' });
      res.end(body);
    };
    server.on('secureConnection', (socket: TLSSocket) => handshakes.push({ resumed: socket.isSessionReused() }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const call = (over: Partial<HttpCall> = {}): HttpCall & { keepAlive: boolean } => ({
    method: 'GET',
    url: new URL('/redfish/v1/Systems/1', origin),
    headers: { Authorization: 'Basic c2VjcmV0', Accept: 'application/json' },
    tls: { ca: certs.caPem, rejectUnauthorized: true },
    timeouts: CLOCKS,
    maxBytes: 1024 * 1024,
    keepAlive: true,
    ...over,
  });

  it('one connection for a burst of calls, a resumed TLS session after the idle close; answers parsed in the worker', async () => {
    const pool = new CallPool({ threads: 1 });
    try {
      handshakes.length = 0;
      authorizations.length = 0;
      for (let i = 0; i < 5; i++) {
        const outcome = await pool.call(call());
        if (!outcome.ok) throw new Error(`${outcome.failure}: ${outcome.detail}`);
        expect(outcome.status).toBe(200);
        expect(outcome.headers).toEqual({ etag: 'W/"7"', allow: 'GET, PATCH' });
        expect(outcome.answer).toEqual({
          json: { Id: '1', Name: 'System', Members: [1, 2, 3], Nul: 'a\uFFFDb' },
          parsed: true,
          breach: undefined,
        });
        expect(Buffer.from(outcome.body).toString('utf8')).toContain('"Members":[1,2,3]');
      }
      expect(handshakes).toEqual([{ resumed: false }]);
      expect(authorizations).toEqual(Array(5).fill('Basic c2VjcmV0'));
      await new Promise((resolve) => setTimeout(resolve, KEEP_ALIVE_IDLE_MS + 1_000));
      const again = await pool.call(call());
      expect(again.ok).toBe(true);
      expect(handshakes).toEqual([{ resumed: false }, { resumed: true }]);
      // an answer slower than the idle close, on a reused socket: the idle clock does not touch it
      const slow = await pool.call(call({ url: new URL('/redfish/v1/slow', origin) }));
      expect(slow).toMatchObject({ ok: true, status: 200 });
      expect(handshakes).toHaveLength(2);
      expect(pool.stats()).toMatchObject({ threads: 1, inFlight: 0, queued: 0, calls: 7 });
    } finally {
      await pool.close();
    }
  });

  it('a body past maxBytes fails as too-large; without keep-alive each call connects anew', async () => {
    const pool = new CallPool({ threads: 1 });
    try {
      handshakes.length = 0;
      const outcome = await pool.call(call({ keepAlive: false, maxBytes: 10 }));
      expect(outcome).toMatchObject({ ok: false, failure: 'too-large' });
      await pool.call(call({ keepAlive: false }));
      expect(handshakes.map((h) => h.resumed)).toEqual([false, false]);
    } finally {
      await pool.close();
    }
  });

  it('the line is bounded: one call more than slots + line fails as busy at once, a call never given a slot fails within its connect clock', async () => {
    const pool = new CallPool({ threads: 1, maxInFlight: 1, maxQueued: 1 });
    hang = true;
    try {
      const slow = pool.call(call({ timeouts: { ...CLOCKS, requestMs: 4_000 } }));
      const queued = pool.call(call({ timeouts: { ...CLOCKS, connectMs: 500 } }));
      const refused = await pool.call(call());
      expect(refused).toMatchObject({ ok: false, failure: 'busy' });
      const started = Date.now();
      expect(await queued).toMatchObject({ ok: false, failure: 'connect-timeout' });
      expect(Date.now() - started).toBeLessThan(3_500);
      expect(await slow).toMatchObject({ ok: false, failure: 'request-timeout' });
      expect(pool.stats()).toMatchObject({ inFlight: 0, queued: 0 });
    } finally {
      hang = false;
      await pool.close();
    }
  });

  it('a worker that ends fails its calls as connection-reset; the next call starts a new one', async () => {
    const pool = new CallPool({ threads: 1 });
    hang = true;
    try {
      const pending = pool.call(call());
      await new Promise((resolve) => setTimeout(resolve, 300));
      await pool.close();
      expect(await pending).toMatchObject({ ok: false, failure: 'connection-reset' });
      hang = false;
      expect(await pool.call(call())).toMatchObject({ ok: true, status: 200 });
    } finally {
      hang = false;
      await pool.close();
    }
  });
});
