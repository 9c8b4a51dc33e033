// A minimal QMP client (qemu's JSON machine protocol) over a unix socket: connect (waiting for
// qemu to create the socket), negotiate capabilities, run commands one at a time with a timeout,
// collect events.
// Does NOT: start qemu (qemu-guest.ts does).
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/** qemu creates its socket within a second or two of starting, even under TCG on a busy machine. */
const CONNECT_WITHIN_MS = 15_000;
/** A command answers at once, except blockdev-add of an http(s) medium, which HEADs the URL first (curl timeout 10 s). */
export const QMP_COMMAND_TIMEOUT_MS = 30_000;

export interface QmpEvent {
  event: string;
  data?: Record<string, unknown>;
  timestamp?: { seconds: number; microseconds: number };
}

export class QmpError extends Error {}

export class QmpClient {
  readonly events: QmpEvent[] = [];
  private buffer = '';
  private pending: { resolve: (v: unknown) => void; reject: (e: Error) => void } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('close', () => {
      this.closed = true;
      this.pending?.reject(new QmpError('QMP connection closed'));
      this.pending = undefined;
    });
    socket.on('error', () => undefined);
  }

  static async connect(path: string, isAlive: () => boolean): Promise<QmpClient> {
    const deadline = Date.now() + CONNECT_WITHIN_MS;
    for (;;) {
      const socket = await new Promise<net.Socket | Error>((resolve) => {
        const s = net.createConnection(path);
        s.once('connect', () => resolve(s));
        s.once('error', (err) => resolve(err));
      });
      if (!(socket instanceof Error)) {
        const client = new QmpClient(socket);
        await client.greeting();
        await client.execute('qmp_capabilities');
        return client;
      }
      if (!isAlive()) throw new QmpError(`qemu exited before its QMP socket ${path} accepted a connection`);
      if (Date.now() > deadline)
        throw new QmpError(`no QMP socket at ${path} within ${CONNECT_WITHIN_MS} ms: ${socket.message}`);
      await delay(100);
    }
  }

  private greeting(): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (let eol = this.buffer.indexOf('\n'); eol >= 0; eol = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, eol).trim();
      this.buffer = this.buffer.slice(eol + 1);
      if (line === '') continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (typeof message.event === 'string') {
        this.events.push(message as unknown as QmpEvent);
        continue;
      }
      const pending = this.pending;
      this.pending = undefined;
      if (!pending) continue;
      if ('QMP' in message || 'return' in message) pending.resolve(message.return);
      else {
        const error = message.error as { class?: string; desc?: string } | undefined;
        pending.reject(new QmpError(`${error?.class ?? 'Error'}: ${error?.desc ?? line}`));
      }
    }
  }

  /** Runs one command after the previous ones; rejects with QmpError on an error reply or the timeout. */
  execute<T = unknown>(
    command: string,
    args?: Record<string, unknown>,
    timeoutMs = QMP_COMMAND_TIMEOUT_MS,
  ): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.closed) throw new QmpError(`QMP connection closed (running ${command})`);
      const reply = new Promise<unknown>((resolve, reject) => {
        this.pending = { resolve, reject };
      });
      this.socket.write(`${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new QmpError(`${command}: no reply within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return (await Promise.race([reply, timeout])) as T;
      } finally {
        clearTimeout(timer);
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Resolves with the first `name` event at or after index `from` of `events` (take `events.length`
   * before the command that causes it), or rejects after `timeoutMs`.
   */
  async waitForEvent(name: string, from: number, timeoutMs = QMP_COMMAND_TIMEOUT_MS): Promise<QmpEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find((e) => e.event === name);
      if (found) return found;
      if (this.closed) throw new QmpError(`QMP connection closed while waiting for ${name}`);
      if (Date.now() > deadline) throw new QmpError(`no ${name} event within ${timeoutMs} ms`);
      await delay(20);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
