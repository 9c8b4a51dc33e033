// The only part of the range layer that writes a body to the socket.
//
// Does: write a planned body (segments with their framing, then the trailer) to the response,
// one segment at a time through a copier (a Readable source: stream-copier.ts; positional
// reads: positional-copier.ts, which on a plain socket with the addon writes cached file bytes as
// views of the file's mapping; on a plain TCP socket, with the kernel I/O addon, HTTP_BODY_IO=sendfile
// and a representation that offers stretches(): sendfile-copier.ts), with backpressure from
// res.write()/'drain' (or, for the sendfile copier, the socket's own writability); report bytes
// and the end of the stream to the hooks. A source that fails or sends the wrong number of bytes
// destroys the connection (the headers are out: the client must see a truncation, never a
// clean short body); a client that goes away stops the current source.
//
// With the sendfile copier the head (and any multipart framing) still goes through Node, corked
// with the body (TCP_CORK) so that they leave in full segments, and the copier starts only once
// Node's queue of the socket is empty (a write callback); nothing is written through Node while it
// runs.
// Does NOT: decide status or headers (src/http/representation/response-plan.ts), write the head, or answer
// errors with a response.
//
// Hand-rolled instead of stream.pipeline() because pipeline(…, { end: false }), needed for
// multipart, leaves listeners on the response per part, and because pipeline would end the
// response cleanly after a source that ends early.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { KernelIo } from '../../kernel-io/kernel-io.js';
import { isPlainSocket, nodeQueueEmpty, SocketFileSender } from '../../kernel-io/socket-file-sender.js';
import type { BodySink, SegmentCopier } from './body-sink.js';
import { PositionalCopier, type PositionalRepresentation } from './positional-copier.js';
import type { Representation } from './representation.js';
import type { ResponsePlan, Segment } from './response-plan.js';
import { SendfileCopier, type ZeroCopyRepresentation } from './sendfile-copier.js';
import { StreamCopier } from './stream-copier.js';

const EMPTY = Buffer.alloc(0);

/** How a streamed body ended. */
export type StreamOutcome = 'complete' | 'client-aborted' | 'source-error';

/** Observers for metrics and logs. They run on the hot path and must not throw. */
export interface ServeHooks {
  /**
   * The plan made for this request (status, headers, body segments), once, before anything is
   * written: which bytes a 200 or 206 carries, for a caller that reports reads without parsing
   * the request again.
   */
  onPlan?(plan: ResponsePlan): void;
  /**
   * Body bytes handed to the response (res.write), multipart framing included, reported per
   * chunk as they are written. On a complete response they add up to Content-Length.
   */
  onBytes?(bytes: number): void;
  /** A body starts streaming (GET with a non-empty body, after the headers were written). */
  onStreamStart?(): void;
  /** Called exactly once after every onStreamStart; `error` is set for `source-error`. */
  onStreamEnd?(outcome: StreamOutcome, error?: unknown): void;
  /**
   * A failure of the representation that this layer handled itself: rep.stream() threw
   * (answered with an error response) or a source failed or sent the wrong number of bytes
   * (connection destroyed). For logging. Never called for client behaviour (416, aborts).
   */
  onError?(error: unknown): void;
}

/**
 * Writes `segments` then `trailer` to `res`, whose head is already written, and ends it.
 * `firstSource`, when given, is the already opened stream of the first segment. Resolves when
 * the response finished or was torn down; never rejects.
 */
/** The kernel I/O addon for a body, and whether file bytes may go to a plain TCP socket by sendfile(2). */
export interface BodyKernelIo {
  io: KernelIo;
  sendfile: boolean;
}

export function pumpBody(
  res: ServerResponse,
  rep: Representation,
  segments: readonly Segment[],
  trailer: string | undefined,
  firstSource: Readable | undefined,
  hooks: ServeHooks | undefined,
  kernelIo?: BodyKernelIo,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const zeroCopy = kernelIo?.sendfile ? zeroCopyOf(res, rep, kernelIo.io) : undefined;
    new BodyPump(res, rep, segments, trailer, firstSource, hooks, resolve, kernelIo?.io, zeroCopy).start();
  });
}

interface ZeroCopy {
  io: KernelIo;
  sender: SocketFileSender;
  rep: ZeroCopyRepresentation;
}

/** The sender of this response when its body may go through the kernel: a plain socket that is the response's own. */
function zeroCopyOf(res: ServerResponse, rep: Representation, io: KernelIo): ZeroCopy | undefined {
  if (rep.stretches === undefined || rep.readInto === undefined) return undefined;
  const socket = res.socket;
  // a pipelined response waits for its turn in Node's buffers: it is not the socket's yet
  if (socket === null || (socket as { _httpMessage?: unknown })._httpMessage !== res) return undefined;
  const sender = SocketFileSender.of(socket, io);
  return sender && { io, sender, rep: rep as ZeroCopyRepresentation };
}

class BodyPump implements BodySink {
  full = false;
  private index = 0;
  private current: SegmentCopier | undefined;
  private done = false;
  private corked = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly rep: Representation,
    private readonly segments: readonly Segment[],
    private readonly trailer: string | undefined,
    private firstSource: Readable | undefined,
    private readonly hooks: ServeHooks | undefined,
    private readonly resolve: () => void,
    private readonly io: KernelIo | undefined,
    private readonly zeroCopy: ZeroCopy | undefined,
  ) {}

  start(): void {
    const res = this.res;
    res.on('finish', this.onFinish);
    res.on('close', this.onResClose);
    res.on('error', this.onResError);
    if (this.zeroCopy !== undefined) {
      this.zeroCopy.sender.cork(true); // the head waits in the kernel for the body's first bytes
      this.corked = true;
    }
    this.next();
  }

  write(chunk: Uint8Array, sent?: () => void): void {
    if (!(sent === undefined ? this.res.write(chunk) : this.res.write(chunk, sent)) && !this.full) {
      this.full = true;
      this.res.once('drain', this.onDrain); // only while full: most answers never fill the socket
    }
    this.hooks?.onBytes?.(chunk.length);
  }

  sent(bytes: number): void {
    this.hooks?.onBytes?.(bytes);
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.settle('source-error', err);
    this.res.destroy();
  }

  abort(err: unknown): void {
    if (this.done) return;
    this.settle('client-aborted', err);
    this.res.destroy();
  }

  segmentDone(): void {
    this.current = undefined;
    this.index++;
    this.next();
  }

  private next(): void {
    const segment = this.segments[this.index];
    if (segment === undefined) {
      if (this.trailer !== undefined) this.write(Buffer.from(this.trailer, 'latin1'));
      this.uncork();
      this.res.end();
      return;
    }
    const zeroCopy = this.zeroCopy;
    if (zeroCopy !== undefined) {
      // Node writes the head (with the first write) and the part's framing; the copier starts once
      // they have left Node's queue.
      const prefix = segment.prefix === undefined ? EMPTY : Buffer.from(segment.prefix, 'latin1');
      this.write(prefix, () => {
        if (this.done) return;
        if (nodeQueueEmpty(zeroCopy.sender.socket)) this.startSendfile(segment, zeroCopy);
        else this.startCopier(segment); // something else queued meanwhile: copy through Node instead
      });
      return;
    }
    if (segment.prefix !== undefined) this.write(Buffer.from(segment.prefix, 'latin1'));
    this.startCopier(segment);
  }

  private startSendfile(segment: Segment, { io, sender, rep }: ZeroCopy): void {
    const copier = new SendfileCopier(rep, segment.start, segment.end, this, sender, io);
    this.current = copier;
    copier.resume();
  }

  private startCopier(segment: Segment): void {
    const rep = this.rep;
    if (rep.readInto) {
      const copier = new PositionalCopier(
        rep as PositionalRepresentation,
        segment.start,
        segment.end,
        this,
        this.io,
        this.io !== undefined && this.res.socket !== null && isPlainSocket(this.res.socket),
      );
      this.current = copier;
      copier.resume();
      return;
    }
    let source = this.firstSource;
    this.firstSource = undefined;
    if (source === undefined) {
      try {
        source = rep.stream(segment.start, segment.end);
      } catch (err) {
        this.fail(err);
        return;
      }
    }
    this.current = new StreamCopier(source, segment.end - segment.start + 1, this);
  }

  /** TCP_CORK off: whatever partial segment the kernel holds leaves now. */
  private uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.zeroCopy?.sender.cork(false);
  }

  private settle(outcome: StreamOutcome, error?: unknown): void {
    this.done = true;
    this.uncork();
    const res = this.res;
    if (this.full) res.off('drain', this.onDrain);
    res.off('finish', this.onFinish);
    res.off('close', this.onResClose);
    res.off('error', this.onResError);
    this.current?.stop();
    this.current = undefined;
    if (outcome === 'source-error') this.hooks?.onError?.(error);
    this.hooks?.onStreamEnd?.(outcome, error);
    this.resolve();
  }

  private readonly onDrain = (): void => {
    this.full = false;
    this.current?.resume();
  };

  private readonly onFinish = (): void => {
    if (!this.done) this.settle('complete');
  };

  private readonly onResClose = (): void => {
    if (!this.done) this.settle('client-aborted');
  };

  private readonly onResError = (err: unknown): void => {
    if (!this.done) this.settle('client-aborted', err);
  };
}
