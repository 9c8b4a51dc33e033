// SendWatchdog over real loopback sockets: the stall rule fires at its time for a client that stops
// reading (a server-side timeout, so its time is asserted within a generous bound), never while
// nothing waits for the client (a slow source, an idle connection); the minimum-progress rule cuts
// a client that reads too little and spares one that reads; behindMs says how long a stream has
// been behind; a stopped watch never reports.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ProgressViolation, SendWatchdog, tickFor } from './send-watchdog.js';
import { socketProgress } from './socket-progress.js';

const STALL_MS = 600;
/**
 * Sampling and event-loop delay on a loaded machine (load 8-11 on two cores stretches a 20 ms
 * sleep past 100 ms); the rule itself is the lower bound, this only says "soon, not never".
 */
const LATE_SLACK_MS = 10_000;
const TOTAL = 48 * 1024 ** 2;
const CHUNK = 256 * 1024;

interface Pair {
  server: net.Socket;
  client: net.Socket;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A connected pair; `onread` shapes how the client reads. */
async function pair(onread?: net.OnReadOpts): Promise<Pair> {
  let accepted!: (s: net.Socket) => void;
  const serverSide = new Promise<net.Socket>((resolve) => (accepted = resolve));
  const listener = net.createServer((s) => accepted(s));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  const client = net.connect({
    port: (listener.address() as AddressInfo).port,
    host: '127.0.0.1',
    ...(onread ? { onread } : {}),
  });
  client.on('error', () => undefined);
  const server = await serverSide;
  server.on('error', () => undefined);
  cleanups.push(async () => {
    client.destroy();
    server.destroy();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });
  return { server, client };
}

/**
 * Resolves once the kernel takes no more of `socket`'s bytes (two samples 50 ms apart agree while
 * something waits): polled, so a loaded machine that fills the buffers slowly is waited for.
 */
async function fillStopped(socket: net.Socket): Promise<void> {
  let last = socketProgress(socket);
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    await sleep(50);
    const now = socketProgress(socket);
    if (now.waiting && now.sent === last.sent && now.sent > 0) return;
    last = now;
  }
  throw new Error(`the fill never stopped: ${JSON.stringify(last)}`);
}

/** Writes TOTAL bytes with backpressure (stops when the socket is destroyed). */
function writeAll(socket: net.Socket): Promise<void> {
  const chunk = Buffer.alloc(CHUNK, 0x42);
  let written = 0;
  return new Promise((resolve) => {
    const pump = () => {
      while (written < TOTAL && !socket.destroyed) {
        written += CHUNK;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end(resolve);
      else resolve();
    };
    socket.once('close', () => resolve());
    pump();
  });
}

function watchOnce(watchdog: SendWatchdog, socket: net.Socket, rule: Parameters<SendWatchdog['watch']>[1]) {
  let report: (v: { violation: ProgressViolation; at: number }) => void = () => undefined;
  const violated = new Promise<{ violation: ProgressViolation; at: number }>((resolve) => (report = resolve));
  const watch = watchdog.watch(socket, rule, (violation) => report({ violation, at: performance.now() }));
  cleanups.push(() => watch.stop());
  return { watch, violated };
}

describe('tickFor', () => {
  it('samples at a tenth of the rule, within 50 ms and 1 s', () => {
    expect(tickFor(600)).toBe(60);
    expect(tickFor(100)).toBe(50);
    expect(tickFor(60_000)).toBe(1_000);
  });
});

describe('the stall rule', () => {
  it('fires at its time after a client stops reading', async () => {
    const { server, client } = await pair();
    client.pause();
    const watchdog = new SendWatchdog(tickFor(STALL_MS));
    const { violated } = watchOnce(watchdog, server, { stallMs: STALL_MS });
    void writeAll(server);
    // The kernel buffers are full once what the server has been given stops moving. The last
    // write happened after the sample before the one that first saw the final count (`before`)
    // and before that one (`seen`): the rule's clock starts in between, however slow the polls.
    let last = -1;
    let before = performance.now();
    let seen = before;
    for (let i = 0; i < 1_000; i++) {
      await sleep(20);
      const sampledAt = performance.now();
      const now = server.bytesWritten;
      if (now === last) break;
      last = now;
      before = seen;
      seen = sampledAt;
    }
    const { violation, at } = await violated;
    expect(violation).toBe('send_timeout');
    expect(at - before).toBeGreaterThanOrEqual(STALL_MS - tickFor(STALL_MS) - 20);
    expect(at - seen).toBeLessThanOrEqual(STALL_MS + LATE_SLACK_MS);
    expect(watchdog.size).toBe(0); // a violation ends the watch
  });

  it('does not fire while nothing waits for the client: an idle connection, a slow source', async () => {
    const { server, client } = await pair();
    client.pause(); // it reads nothing, but nothing is waiting for it either
    const watchdog = new SendWatchdog(tickFor(STALL_MS));
    let fired: ProgressViolation | undefined;
    const watch = watchdog.watch(server, { stallMs: STALL_MS, minBytes: 1024 ** 2, windowMs: STALL_MS }, (v) => {
      fired = v;
    });
    cleanups.push(() => watch.stop());
    // A source that produces 1 KiB now and then: the kernel takes each at once.
    for (let i = 0; i < 4; i++) {
      server.write(Buffer.alloc(1024));
      await sleep(STALL_MS);
    }
    expect(fired).toBeUndefined();
    expect(watch.behindMs(performance.now())).toBe(0);
    expect(watchdog.size).toBe(1);
  });
});

describe('the minimum-progress rule', () => {
  const RULE = { minBytes: 8 * 1024 ** 2, windowMs: 800 };

  it('cuts a client that reads, but too little', async () => {
    // 16 KiB every 100 ms: 160 KiB/s, far below 8 MiB per 800 ms
    const { server, client } = await pair({
      buffer: Buffer.alloc(16 * 1024),
      callback: () => {
        setTimeout(() => client.resume(), 100);
        return false;
      },
    });
    const watchdog = new SendWatchdog(tickFor(RULE.windowMs));
    const { violated } = watchOnce(watchdog, server, RULE);
    void writeAll(server);
    const { violation } = await violated;
    expect(violation).toBe('min_progress');
    expect(server.destroyed).toBe(false); // the watchdog reports; its owner closes
  });

  it('spares a client that reads at full speed', async () => {
    const { server, client } = await pair();
    client.on('data', () => undefined);
    const watchdog = new SendWatchdog(tickFor(RULE.windowMs));
    let fired: ProgressViolation | undefined;
    const watch = watchdog.watch(server, RULE, (v) => (fired = v));
    cleanups.push(() => watch.stop());
    await writeAll(server);
    await sleep(RULE.windowMs + 2 * tickFor(RULE.windowMs));
    expect(fired).toBeUndefined();
  });

  it('says how long a stream has been behind its quota', async () => {
    const { server, client } = await pair();
    client.pause();
    const watchdog = new SendWatchdog(10_000); // no tick in this test: behindMs samples itself
    const watch = watchdog.watch(server, { minBytes: 1024, windowMs: 60_000 }, () => undefined);
    cleanups.push(() => watch.stop());
    void writeAll(server);
    await fillStopped(server);
    const t = performance.now();
    const first = watch.behindMs(t); // the fill met the quota: its window started now
    expect(first).toBe(0);
    await sleep(400);
    expect(watch.behindMs(performance.now())).toBeGreaterThanOrEqual(350);
    watch.stop();
    expect(watch.behindMs(performance.now())).toBe(0);
    expect(watchdog.size).toBe(0);
  });
});
