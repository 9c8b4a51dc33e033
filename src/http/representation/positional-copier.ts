// Copies one segment through positional reads (Representation.readInto) into the body sink.
//
// Does: one read at a time into a recycled buffer from src/http/representation/buffer-pool.ts, one write per
// read, the buffer given back once the socket took its bytes; stops reading while the response
// is full. A segment of at most WHOLE_BODY_BYTES (a BMC's typical Range) is one read and one
// write. With the kernel I/O addon and readIntoCached, a read whose pages are all cached is done
// at once on the event loop (no hand-off to libuv's pool and back); any other goes to the pool.
// A failed or short read is a failure reported to the sink.
// Does NOT: touch the response directly, frame parts, or read ahead.
import type { KernelIo } from '../../kernel-io/kernel-io.js';
import type { BodySink, SegmentCopier } from './body-sink.js';
import { bodyBufferPool, CHUNK_BYTES, WHOLE_BODY_BYTES } from './buffer-pool.js';
import type { Representation } from './representation.js';

export class PositionalCopier implements SegmentCopier {
  private position: number;
  private readonly bufferSize: number;
  private reading = false;
  private stopped = false;

  constructor(
    private readonly rep: Required<Pick<Representation, 'readInto'>> & Pick<Representation, 'readIntoCached'>,
    start: number,
    private readonly last: number,
    private readonly sink: BodySink,
    private readonly io?: KernelIo,
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
    while (!this.stopped && !this.reading && !this.sink.full) {
      if (this.position > this.last) {
        this.stopped = true;
        this.sink.segmentDone();
        return;
      }
      const position = this.position;
      const length = Math.min(this.bufferSize, this.last - position + 1);
      const buffer = bodyBufferPool.take(this.bufferSize);
      const cached = this.io && this.rep.readIntoCached?.(this.io, buffer, 0, length, position);
      if (cached !== length) {
        this.readAsync(buffer, position, length);
        return;
      }
      if (!this.deliver(buffer, position, length)) return;
    }
  }

  /** Hands a read buffer to the sink; false when the segment failed. */
  private deliver(buffer: Buffer, position: number, length: number): boolean {
    this.position = position + length;
    try {
      this.sink.write(length === buffer.length ? buffer : buffer.subarray(0, length), () =>
        bodyBufferPool.giveBack(buffer),
      );
    } catch (e) {
      this.sink.fail(e);
      return false;
    }
    return true;
  }

  private readAsync(buffer: Buffer, position: number, length: number): void {
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
      if (this.deliver(buffer, position, length)) this.readNext();
    });
  }
}
