// How far a connection's outgoing bytes have really gone: the bytes the kernel accepted from
// this process, and whether bytes are still waiting in the process for the client to take them.
//
// Does: read both from the socket's handle for plain TCP and for TLS (whose TLS handle sits on
// the TCP handle: progress is counted on the wire, in ciphertext). This is the one place that
// reads Node's handle fields (`bytesWritten`, `writeQueueSize`, a TLS handle's `_parent`), the
// fields Node's own socket timeout reads; socket-progress.tools.test.ts pins them on real sockets, so a
// Node upgrade that changes them fails there.
// Does NOT: time anything (src/http/transport/send-watchdog.ts does) or close anything.
//
// Why not `socket.bytesWritten`: it counts bytes handed to the handle, including those still in
// its queue, so it keeps growing for a client that never reads until the queue is full.
import type { Socket } from 'node:net';

export interface SocketProgress {
  /** Bytes the kernel accepted on this connection so far (TLS: ciphertext). Never decreases. */
  sent: number;
  /** Bytes are waiting in this process to be sent: the client, not the server, is the bottleneck. */
  waiting: boolean;
}

/** The fields of a stream handle read here (libuv's write queue, StreamBase's byte count). */
interface StreamHandle {
  bytesWritten?: unknown;
  writeQueueSize?: unknown;
  /** A TLS handle's underlying TCP handle. */
  _parent?: StreamHandle;
}

/** The progress of `socket` now; a socket without a handle (closed) has nothing waiting. */
export function socketProgress(socket: Socket): SocketProgress {
  const handle = (socket as unknown as { _handle?: StreamHandle | null })._handle ?? undefined;
  if (handle === undefined) return { sent: socket.bytesWritten, waiting: false };
  const wire = handle._parent ?? handle;
  if (typeof wire.bytesWritten !== 'number' || typeof wire.writeQueueSize !== 'number') {
    // Handle fields unknown (another runtime): count bytes handed to the handle instead. That
    // over-counts by the handle's queue, so a reader is never cut for it; a stalled client still
    // stops the count once the queue is full.
    const buffered = socket.writableLength;
    return { sent: Math.max(0, socket.bytesWritten - buffered), waiting: buffered > 0 };
  }
  const queued = wire.writeQueueSize;
  const tlsQueued = wire !== handle && typeof handle.writeQueueSize === 'number' ? handle.writeQueueSize : 0;
  return {
    sent: Math.max(0, wire.bytesWritten - queued),
    waiting: queued > 0 || tlsQueued > 0 || socket.writableLength > 0,
  };
}
