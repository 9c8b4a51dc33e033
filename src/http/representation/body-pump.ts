// The only part of the range layer that writes a body to the socket.
//
// Does: write a planned body (segments with their framing, then the trailer) to the response,
// one segment at a time through a copier (a Readable source: stream-copier.ts; positional
// reads: positional-copier.ts), with backpressure from res.write()/'drain'; report bytes and
// the end of the stream to the hooks. A source that fails or sends the wrong number of bytes
// destroys the connection (the headers are out: the client must see a truncation, never a
// clean short body); a client that goes away stops the current source.
// Does NOT: decide status or headers (src/http/representation/response-plan.ts), write the head, or answer
// errors with a response.
//
// Hand-rolled instead of stream.pipeline() because pipeline(…, { end: false }), needed for
// multipart, leaves listeners on the response per part, and because pipeline would end the
// response cleanly after a source that ends early.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { BodySink, SegmentCopier } from './body-sink.js';
import { PositionalCopier } from './positional-copier.js';
import type { Representation } from './representation.js';
import type { ResponsePlan, Segment } from './response-plan.js';
import { StreamCopier } from './stream-copier.js';

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
export function pumpBody(
  res: ServerResponse,
  rep: Representation,
  segments: readonly Segment[],
  trailer: string | undefined,
  firstSource: Readable | undefined,
  hooks: ServeHooks | undefined,
): Promise<void> {
  return new Promise<void>((resolve) => {
    new BodyPump(res, rep, segments, trailer, firstSource, hooks, resolve).start();
  });
}

class BodyPump implements BodySink {
  full = false;
  private index = 0;
  private current: SegmentCopier | undefined;
  private done = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly rep: Representation,
    private readonly segments: readonly Segment[],
    private readonly trailer: string | undefined,
    private firstSource: Readable | undefined,
    private readonly hooks: ServeHooks | undefined,
    private readonly resolve: () => void,
  ) {}

  start(): void {
    const res = this.res;
    res.on('drain', this.onDrain);
    res.on('finish', this.onFinish);
    res.on('close', this.onResClose);
    res.on('error', this.onResError);
    this.next();
  }

  write(chunk: Uint8Array, sent?: () => void): void {
    if (!(sent === undefined ? this.res.write(chunk) : this.res.write(chunk, sent))) this.full = true;
    this.hooks?.onBytes?.(chunk.length);
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.settle('source-error', err);
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
      this.res.end();
      return;
    }
    if (segment.prefix !== undefined) this.write(Buffer.from(segment.prefix, 'latin1'));
    const rep = this.rep;
    if (rep.readInto) {
      const copier = new PositionalCopier(
        rep as Required<Pick<Representation, 'readInto'>>,
        segment.start,
        segment.end,
        this,
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

  private settle(outcome: StreamOutcome, error?: unknown): void {
    this.done = true;
    const res = this.res;
    res.off('drain', this.onDrain);
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
