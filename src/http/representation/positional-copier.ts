// Copies one segment through positional reads (Representation.readInto) into the body sink.
//
// Does: one read at a time into a recycled buffer from src/http/representation/buffer-pool.ts, one write per
// read, the buffer given back once the socket took its bytes; stops reading while the response
// is full. A segment of at most WHOLE_BODY_BYTES (a BMC's typical Range) is one read and one
// write. A failed or short read is a failure reported to the sink.
// Does NOT: touch the response directly, frame parts, or read ahead.
import type { BodySink, SegmentCopier } from './body-sink.js';
import { bodyBufferPool, CHUNK_BYTES, WHOLE_BODY_BYTES } from './buffer-pool.js';
import type { Representation } from './representation.js';

export class PositionalCopier implements SegmentCopier {
  private position: number;
  private readonly bufferSize: number;
  private reading = false;
  private stopped = false;

  constructor(
    private readonly rep: Required<Pick<Representation, 'readInto'>>,
    start: number,
    private readonly last: number,
    private readonly sink: BodySink,
  ) {
    this.position = start;
    this.bufferSize = last - start + 1 <= WHOLE_BODY_BYTES ? WHOLE_BODY_BYTES : CHUNK_BYTES;
  }

  resume(): void {
    this.readNext();
  }

  stop(): void {
    this.stopped = true;
  }

  private readNext(): void {
    if (this.stopped || this.reading || this.sink.full) return;
    if (this.position > this.last) {
      this.stopped = true;
      this.sink.segmentDone();
      return;
    }
    const position = this.position;
    const length = Math.min(this.bufferSize, this.last - position + 1);
    const buffer = bodyBufferPool.take(this.bufferSize);
    this.reading = true;
    this.rep.readInto(buffer, 0, length, position, (err, copied) => {
      this.reading = false;
      if (this.stopped) {
        bodyBufferPool.giveBack(buffer);
        return;
      }
      if (err || copied !== length) {
        bodyBufferPool.giveBack(buffer);
        this.sink.fail(err ?? new Error(`representation read ${copied} of ${length} bytes at ${position}`));
        return;
      }
      this.position = position + length;
      try {
        this.sink.write(length === buffer.length ? buffer : buffer.subarray(0, length), () =>
          bodyBufferPool.giveBack(buffer),
        );
      } catch (e) {
        this.sink.fail(e);
        return;
      }
      this.readNext();
    });
  }
}
