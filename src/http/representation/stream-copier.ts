// Copies one segment from a Readable source (Representation.stream) into the body sink.
//
// Does: forward chunks as they arrive, pause the source while the response is full, and
// insist on exactly the segment's byte count: more, fewer (a clean early end) or a close
// without end is a failure reported to the sink, never a silently short body.
// Does NOT: open the source (the pump does), touch the response directly, or frame parts.
import type { Readable } from 'node:stream';
import type { BodySink, SegmentCopier } from './body-sink.js';

function noop(): void {}

export class StreamCopier implements SegmentCopier {
  private received = 0;
  private ended = false;
  private attached = true;

  constructor(
    private readonly source: Readable,
    private readonly expected: number,
    private readonly sink: BodySink,
  ) {
    if (sink.full) source.pause(); // stays paused when the 'data' listener is added
    source.on('data', this.onData);
    source.on('end', this.onEnd);
    source.on('error', this.onError);
    source.on('close', this.onClose);
  }

  resume(): void {
    if (this.attached) this.source.resume();
  }

  stop(): void {
    if (!this.attached) return;
    this.detach();
    this.source.destroy();
  }

  private detach(): void {
    this.attached = false;
    const source = this.source;
    source.off('data', this.onData);
    source.off('end', this.onEnd);
    source.off('error', this.onError);
    source.off('close', this.onClose);
    source.on('error', noop); // a late error from a detached source must not crash the process
  }

  private readonly onData = (chunk: Uint8Array): void => {
    this.received += chunk.length;
    if (this.received > this.expected) {
      this.sink.fail(new Error(`representation stream sent more than the ${this.expected} bytes requested`));
      return;
    }
    try {
      this.sink.write(chunk);
    } catch (err) {
      this.sink.fail(err); // e.g. a source in object mode emitting something that is not bytes
      return;
    }
    if (this.sink.full) this.source.pause();
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    if (this.received !== this.expected) {
      this.sink.fail(new Error(`representation stream ended after ${this.received} of ${this.expected} bytes`));
      return;
    }
    this.detach();
    this.sink.segmentDone();
  };

  private readonly onError = (err: unknown): void => {
    this.sink.fail(err);
  };

  private readonly onClose = (): void => {
    if (!this.ended) {
      this.sink.fail(new Error(`representation stream closed after ${this.received} of ${this.expected} bytes`));
    }
  };
}
