// SocketFileSender on real loopback sockets: one sender per plain TCP socket (none for TLS or a
// destroyed socket), its duplicate descriptor closed with the socket; the bytes it sends counted
// for the watchers (offStreamProgress), `waiting` while the client takes nothing, the wake-up
// once it reads; the send watchdog's stall rule (src/http/transport/send-watchdog.ts) firing for a
// client that stopped reading a sendfile body; Node's inactivity timer refreshed by its progress; nodeQueueEmpty() following
// Node's own queue. Pins the handle fields it reads (`fd`, `writeQueueSize`).
import { closeSync, existsSync, openSync, readlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../test/support/requirements.js';
import { kernelIo, type KernelIo } from './native-binding.js';
import { nodeQueueEmpty, offStreamProgress, SocketFileSender } from './socket-file-sender.js';
import { connectedPair, fdOf, readExactly } from './test-support/socket-pair.js';
import { SendWatchdog, tickFor } from '../http/transport/send-watchdog.js';
import { socketProgress } from '../http/transport/socket-progress.js';

const STALL_MS = 600;

const io = kernelIo();
const missing = unavailable({ 'the kernel I/O addon (npm ci builds it with g++, make and python3)': io !== undefined });

const until = async (what: string, condition: () => boolean, boundMs = 10_000): Promise<void> => {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.skipIf(missing)('SocketFileSender', () => {
  const k = io as KernelIo;
  let dir: string;
  let file: string;
  const bytes = randomBytes(8 * 1024 * 1024);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'socket-file-sender-'));
    file = path.join(dir, 'data.bin');
    writeFileSync(file, bytes);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the handle fields it relies on from a live TCP socket', async () => {
    const { server, close } = await connectedPair();
    try {
      const handle = (server as unknown as { _handle: { fd: unknown; writeQueueSize: unknown } })._handle;
      expect(typeof handle.fd).toBe('number');
      expect(typeof handle.writeQueueSize).toBe('number');
      expect(nodeQueueEmpty(server)).toBe(true);
    } finally {
      close();
    }
  });

  it('is one per plain socket, none for a TLS socket or a destroyed one, and closes its descriptor with the socket', async () => {
    const { server, client, close } = await connectedPair();
    const sender = SocketFileSender.of(server, k)!;
    expect(sender).toBeDefined();
    expect(SocketFileSender.of(server, k)).toBe(sender);
    expect(sender.fd).not.toBe(fdOf(server));
    const target = readlinkSync(`/proc/self/fd/${sender.fd}`);
    expect(target).toMatch(/^socket:/);
    const stillOpen = () =>
      existsSync(`/proc/self/fd/${sender.fd}`) && readlinkSync(`/proc/self/fd/${sender.fd}`) === target;
    const wrapped = new tls.TLSSocket(client);
    expect(SocketFileSender.of(wrapped, k)).toBeUndefined();
    wrapped.destroy();
    const closed = new Promise((resolve) => server.once('close', resolve));
    close();
    await closed;
    expect(stillOpen()).toBe(false);
    expect(sender.send(Buffer.from('x'), 0, 1)).toBeLessThan(0);
    expect(SocketFileSender.of(server, k)).toBeUndefined();
  });

  it('counts what the kernel took, waits while the client takes nothing, and wakes up when it reads', async () => {
    const { server, client, close } = await connectedPair();
    const fd = openSync(file, 'r');
    try {
      client.pause();
      const sender = SocketFileSender.of(server, k)!;
      let position = 0;
      let result = 0;
      while (position < bytes.length) {
        result = sender.sendFile(fd, position, bytes.length - position);
        if (result <= 0) break;
        position += result;
      }
      expect(sender.isFull(result)).toBe(true); // 8 MiB never fit loopback buffers
      expect(offStreamProgress(server)).toEqual({ sent: position, waiting: false });
      let woke = false;
      sender.whenWritable(() => {
        woke = true;
      });
      expect(offStreamProgress(server)!.waiting).toBe(true);
      const rest = readExactly(client, bytes.length);
      client.resume();
      await until('the wake-up', () => woke);
      expect(offStreamProgress(server)!.waiting).toBe(false);
      while (position < bytes.length) {
        result = sender.sendFile(fd, position, bytes.length - position);
        if (result > 0) position += result;
        else await new Promise<void>((resolve) => sender.whenWritable(resolve));
      }
      expect((await rest).equals(bytes)).toBe(true);
      expect(offStreamProgress(server)!.sent).toBe(bytes.length);
    } finally {
      closeSync(fd);
      close();
    }
  });

  it("refreshes Node's inactivity timer of the socket as it sends", async () => {
    const { server, client, close } = await connectedPair();
    try {
      client.on('data', () => undefined);
      const sender = SocketFileSender.of(server, k)!;
      const TIMEOUT_MS = 1_000;
      let timedOutAt: number | undefined;
      server.setTimeout(TIMEOUT_MS, () => {
        timedOutAt ??= performance.now();
      });
      const sends: number[] = [];
      for (const stop = performance.now() + 2.5 * TIMEOUT_MS; performance.now() < stop;) {
        expect(sender.send(Buffer.from('tick'), 0, 4)).toBe(4);
        sends.push(performance.now());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await until('the timeout once nothing moves', () => timedOutAt !== undefined);
      // Unrefreshed, the timer would fire 1 s after setTimeout, within 50 ms of some send; refreshed,
      // only once the sends stopped (a loaded machine's late timers can only lengthen the gap).
      const lastSendBefore = Math.max(...sends.filter((t) => t < timedOutAt!));
      expect(timedOutAt! - lastSendBefore).toBeGreaterThanOrEqual(TIMEOUT_MS / 2);
    } finally {
      close();
    }
  });

  it('lets the send watchdog cut a client that stopped reading a sendfile body', async () => {
    const { server, client, close } = await connectedPair();
    const fd = openSync(file, 'r');
    const watchdog = new SendWatchdog(tickFor(STALL_MS));
    try {
      client.pause();
      const sender = SocketFileSender.of(server, k)!;
      const violated = new Promise<string>((resolve) => watchdog.watch(server, { stallMs: STALL_MS }, resolve));
      // sendfile until the kernel takes no more (8 MiB at a time, from the start of the file again)
      for (let result = 1; result > 0 || !sender.isFull(result);) {
        result = sender.sendFile(fd, 0, bytes.length);
        if (result <= 0 && !sender.isFull(result)) throw new Error(`sendfile failed: ${result}`);
      }
      sender.whenWritable(() => undefined); // the copier waits like this
      expect(socketProgress(server).waiting).toBe(true);
      expect(await violated).toBe('send_timeout');
    } finally {
      closeSync(fd);
      close();
    }
  });

  it("follows Node's own queue: not empty while a write waits for the client", async () => {
    const { server, client, close } = await connectedPair();
    try {
      client.pause();
      let writes = 0;
      while (server.write(Buffer.alloc(1024 * 1024)) && writes < 64) writes++;
      expect(nodeQueueEmpty(server)).toBe(false);
      client.resume();
      client.on('data', () => undefined);
      await new Promise((resolve) => server.once('drain', resolve));
      await until('the queue emptying', () => nodeQueueEmpty(server));
    } finally {
      close();
    }
  });
});
