// The contract between the body pump (src/http/representation/body-pump.ts) and the copiers that move one
// segment's bytes from a representation into the response (stream-copier.ts,
// positional-copier.ts, sendfile-copier.ts). Types only.
//
// Does: name who may write, who signals a full socket, and how a copier reports the end of its
// segment or a failure. Does NOT: implement any of it.

/** The response side, as a copier sees it. */
export interface BodySink {
  /**
   * Writes `chunk` to the response and reports it to onBytes; `sent` runs once the socket took
   * the bytes (so a recycled buffer can go back to its pool). Throws what res.write() throws.
   */
  write(chunk: Uint8Array, sent?: () => void): void;
  /** The response's buffer is full: produce nothing more until SegmentCopier.resume(). */
  readonly full: boolean;
  /** The body cannot be completed (source error, wrong byte count): the connection is dropped. */
  fail(err: unknown): void;
  /** The client went away (the socket failed under a send of the copier's own): the connection is dropped. */
  abort(err: unknown): void;
  /** `bytes` went to the client past the response's stream (sendfile, send): reported like written ones. */
  sent(bytes: number): void;
  /** Every byte of the segment was written; the pump moves on to the next one. */
  segmentDone(): void;
}

/** One segment being copied, as the pump sees it. */
export interface SegmentCopier {
  /** The response drained: produce again. */
  resume(): void;
  /** The response settled (finished, aborted, failed): release the source, produce nothing more. */
  stop(): void;
}
