// socketProgress over real loopback sockets, plain and TLS: for a client that stops reading, the
// bytes the kernel accepted stop growing while bytes wait in the process (where socket.bytesWritten
// keeps counting what only sits in the handle's queue); once the client reads everything, every
// byte was accepted and nothing waits. Pins the Node handle fields the module reads.
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_OPENSSL } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { socketProgress } from './socket-progress.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from './tls/test-support/certificates.js';

/** Far more than loopback socket buffers hold. */
const TOTAL = 32 * 1024 ** 2;
const CHUNK = 256 * 1024;
const POLL_MS = 50;
const POLL_BOUND = 200;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Writes TOTAL bytes to `socket` with backpressure, then ends it. */
function writeAll(socket: net.Socket): void {
  const chunk = Buffer.alloc(CHUNK, 0x5a);
  let written = 0;
  const pump = () => {
    while (written < TOTAL) {
      written += CHUNK;
      if (!socket.write(chunk)) return void socket.once('drain', pump);
    }
    socket.end();
  };
  pump();
}

/** Polls until two samples POLL_MS apart are equal and something waits: the client's buffers are full. */
async function stalled(socket: net.Socket): Promise<{ sent: number; waiting: boolean }> {
  let last = socketProgress(socket);
  for (let i = 0; i < POLL_BOUND; i++) {
    await sleep(POLL_MS);
    const now = socketProgress(socket);
    if (now.waiting && now.sent === last.sent && now.sent > 0) return now;
    last = now;
  }
  throw new Error(`progress never settled: ${JSON.stringify(last)}`);
}

async function checkStallThenDrain(server: net.Socket, client: net.Socket, wireBytesAtLeast: number): Promise<void> {
  const stall = await stalled(server);
  expect(stall.sent).toBeLessThan(TOTAL);
  // What the handle was given includes its queue: more than the kernel took.
  expect(server.bytesWritten).toBeGreaterThan(stall.sent);
  await sleep(300);
  expect(socketProgress(server)).toEqual(stall);

  const ended = new Promise<void>((resolve) => server.once('finish', () => resolve()));
  client.on('data', () => undefined);
  client.resume();
  await ended;
  const done = socketProgress(server);
  expect(done.waiting).toBe(false);
  expect(done.sent).toBeGreaterThanOrEqual(wireBytesAtLeast);
}

describe('socketProgress on plain TCP', () => {
  it('stops counting while a client does not read, and counts every byte once it has', async () => {
    let accepted!: (s: net.Socket) => void;
    const serverSide = new Promise<net.Socket>((resolve) => (accepted = resolve));
    const server = net.createServer((s) => accepted(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const client = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    client.pause();
    try {
      const socket = await serverSide;
      socket.on('error', () => undefined);
      expect(socketProgress(socket)).toEqual({ sent: 0, waiting: false });
      writeAll(socket);
      await checkStallThenDrain(socket, client, TOTAL);
      expect(socketProgress(socket).sent).toBe(TOTAL); // plain TCP: exactly the bytes written
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('reports nothing waiting once the socket is destroyed', () => {
    const socket = new net.Socket(); // no handle, as after destroy()
    socket.destroy();
    expect(socketProgress(socket)).toEqual({ sent: 0, waiting: false });
  });
});

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('socketProgress on TLS', () => {
  let dir: string;
  let ca: TestCa;
  let leaf: TestLeaf;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'socket-progress-'));
    ca = makeCa(dir);
    leaf = makeLeaf(dir, ca, 'server');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('counts ciphertext on the wire: stops while the client does not read, covers every byte once it has', async () => {
    let accepted!: (s: tls.TLSSocket) => void;
    const serverSide = new Promise<tls.TLSSocket>((resolve) => (accepted = resolve));
    const server = tls.createServer({ cert: leaf.chainPem, key: leaf.keyPem }, (s) => accepted(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const client = tls.connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', ca: ca.certPem });
    client.on('error', () => undefined);
    const secured = new Promise<void>((resolve) => client.once('secureConnect', () => resolve()));
    try {
      const socket = await serverSide;
      socket.on('error', () => undefined);
      await secured;
      client.pause();
      const handshake = socketProgress(socket).sent;
      expect(handshake).toBeGreaterThan(0); // the server's handshake messages went out
      writeAll(socket);
      // ciphertext: the plaintext plus record overhead
      await checkStallThenDrain(socket, client, handshake + TOTAL);
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
