// Graceful drain under TLS (a self-signed certificate made by openssl): a stream in flight on an
// HTTPS listener finishes with every byte, then its connection closes, nothing cut. The drain's
// other cases over plain loopback HTTP are drain.test.ts.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { selfSignedCert } from '../../images/test-support/images.js';
import { Drain } from './drain.js';

const CHUNK = Buffer.alloc(64 * 1024, 0x5a);
const CHUNKS = 32;

describe('graceful drain under TLS', () => {
  it('lets the stream finish, then closes its connection', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-drain-tls-'));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let streaming!: () => void;
    const started = new Promise<void>((resolve) => (streaming = resolve));
    const server = https.createServer(selfSignedCert(dir), (_req, res) => {
      res.writeHead(200, { 'Content-Length': String(CHUNK.length * CHUNKS) });
      for (let i = 0; i < CHUNKS / 2; i++) res.write(CHUNK);
      streaming();
      void released.then(() => {
        for (let i = CHUNKS / 2; i < CHUNKS; i++) res.write(CHUNK);
        res.end();
      });
    });
    const drain = new Drain(server);
    try {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const socket = tls.connect({
        port: (server.address() as AddressInfo).port,
        host: '127.0.0.1',
        rejectUnauthorized: false,
      });
      const chunks: Buffer[] = [];
      socket.on('data', (b: Buffer) => chunks.push(b));
      socket.on('error', () => undefined);
      const closed = once(socket, 'close').then(() => Buffer.concat(chunks));
      socket.write('GET /stream HTTP/1.1\r\nHost: t\r\nConnection: keep-alive\r\n\r\n');
      await started;
      const drained = drain.drain(30_000);
      release();
      const raw = await closed; // closed by the server once the response finished
      const body = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
      expect(body.length).toBe(CHUNK.length * CHUNKS);
      expect((await drained).cut).toBe(0);
    } finally {
      release();
      server.closeAllConnections();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
