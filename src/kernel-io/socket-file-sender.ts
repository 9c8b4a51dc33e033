// Writes a response body to a plain TCP socket past Node's stream: sendfile(2) of file ranges (one
// copy, page cache to socket) and send(2) of bytes in memory, on a duplicate of the socket's
// descriptor, waiting for writability with a libuv poll of that duplicate (./native-binding.ts).
//
// Does: one sender per socket, made on first use and closed with the socket, so every response of
// a keep-alive connection reuses it; count the bytes the kernel took this way and say whether bytes
// wait for the client (offStreamProgress(): the send watchdog and the artifact slots read it through
// src/http/transport/socket-progress.ts); refresh Node's inactivity timer of the socket on progress
// (it sees none of these writes); TCP_CORK around a response.
// Does NOT: decide what to send or in which order, or write through Node: a caller uses it only
// while Node's own write queue is empty (nodeQueueEmpty()) and writes through Node only while this
// has nothing pending. Never used on TLS sockets (no descriptor carries their plaintext).
//
// Reads two of Node's socket handle fields, `fd` and `writeQueueSize`, like
// src/http/transport/socket-progress.ts; socket-file-sender.tools.test.ts pins them on real sockets.
import type { Socket } from 'node:net';
import { constants } from 'node:os';
import type { KernelIo, WritableWatch } from './kernel-io.js';

interface TcpHandle {
  fd?: unknown;
  writeQueueSize?: unknown;
}

function handleOf(socket: Socket): TcpHandle | undefined {
  return (socket as unknown as { _handle?: TcpHandle | null })._handle ?? undefined;
}

/** The socket carries no TLS: what is written to it goes to the kernel as it is, never read in this process. */
export function isPlainSocket(socket: Socket): boolean {
  return (socket as { encrypted?: boolean }).encrypted !== true;
}

/** The socket's own descriptor when it is a plain TCP socket Node drives; undefined for TLS and anything else. */
function plainDescriptor(socket: Socket): number | undefined {
  if (!isPlainSocket(socket)) return undefined;
  const fd = handleOf(socket)?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** Node holds no bytes of this socket: nothing corked, buffered in the stream, or queued in libuv. */
export function nodeQueueEmpty(socket: Socket): boolean {
  const queued = handleOf(socket)?.writeQueueSize;
  return socket.writableLength === 0 && !socket.writableCorked && (queued === undefined || queued === 0);
}

const senders = new WeakMap<Socket, SocketFileSender>();

/** Bytes sent past Node's stream on `socket`, and whether some wait for the client; undefined when none were. */
export function offStreamProgress(socket: Socket): { sent: number; waiting: boolean } | undefined {
  const sender = senders.get(socket);
  return sender && { sent: sender.sent, waiting: sender.waiting };
}

export class SocketFileSender {
  /** Bytes the kernel took through this sender so far. */
  sent = 0;
  /** A send found the socket full and waits for the client to take bytes. */
  waiting = false;
  private readonly watch: WritableWatch;
  private onWritable: (() => void) | undefined;
  private closed = false;

  private constructor(
    private readonly io: KernelIo,
    readonly socket: Socket,
    readonly fd: number,
  ) {
    this.watch = new io.WritableWatch(fd, () => {
      this.waiting = false;
      const next = this.onWritable;
      this.onWritable = undefined;
      next?.();
    });
    socket.once('close', () => this.close());
  }

  /** The sender of `socket` (made now if needed); undefined when it is not a plain, open TCP socket. */
  static of(socket: Socket, io: KernelIo): SocketFileSender | undefined {
    const known = senders.get(socket);
    if (known !== undefined) return known.closed ? undefined : known;
    if (socket.destroyed) return undefined;
    const own = plainDescriptor(socket);
    if (own === undefined) return undefined;
    const fd = io.dup(own);
    if (fd < 0) return undefined;
    let sender: SocketFileSender;
    try {
      sender = new SocketFileSender(io, socket, fd);
    } catch {
      io.close(fd);
      return undefined;
    }
    senders.set(socket, sender);
    return sender;
  }

  /** sendfile(2) of `length` bytes of `fileFd` at `position`: bytes the kernel took (0: end of file), or -errno (-EAGAIN: full). */
  sendFile(fileFd: number, position: number, length: number): number {
    if (this.closed) return -constants.errno.EBADF;
    return this.counted(this.io.sendFile(this.fd, fileFd, position, length));
  }

  /** send(2) of `length` bytes of `bytes` from `offset`: bytes the kernel took, or -errno (-EAGAIN: full). */
  send(bytes: Uint8Array, offset: number, length: number): number {
    if (this.closed) return -constants.errno.EBADF;
    return this.counted(this.io.send(this.fd, bytes, offset, length));
  }

  /** Whether `result` of sendFile/send means the socket is full (wait with whenWritable). */
  isFull(result: number): boolean {
    return result === -this.io.EAGAIN;
  }

  /** TCP_CORK: partial segments are held until it is turned off (the head and the body leave together). */
  cork(on: boolean): void {
    if (!this.closed) this.io.setCork(this.fd, on ? 1 : 0);
  }

  /** Calls `next` once the socket can take bytes again (or failed: the next send says how). */
  whenWritable(next: () => void): void {
    if (this.closed) return;
    this.onWritable = next;
    this.waiting = true;
    this.watch.start();
  }

  /** Forgets a pending whenWritable (the response ended). */
  cancel(): void {
    if (this.onWritable === undefined) return;
    this.onWritable = undefined;
    this.waiting = false;
    if (!this.closed) this.watch.stop();
  }

  /** Closes the duplicate descriptor (with the socket: the connection ends once Node closed its own). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onWritable = undefined;
    this.waiting = false;
    this.watch.close();
    this.io.close(this.fd);
  }

  private counted(result: number): number {
    if (result > 0) {
      this.sent += result;
      // Node's inactivity timer (server.setTimeout, the send timeout's backstop) sees no write of ours.
      (this.socket as { _unrefTimer?: () => void })._unrefTimer?.();
    }
    return result;
  }
}
