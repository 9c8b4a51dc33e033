// Copies one segment through positional reads (Representation.readInto) into the body sink.
//
// Does: one read at a time into a recycled buffer from src/http/representation/buffer-pool.ts, one write per
// read, the buffer given back once the socket took its bytes; stops reading while the response
// is full. A segment of at most WHOLE_BODY_BYTES (a BMC's typical Range) is one read and one
// write. With the kernel I/O addon and readIntoCached, a read whose pages are all cached is done
// at once on the event loop (no hand-off to libuv's pool and back); any other goes to the pool.
// On a plain socket with cachedViews (`viaMapping`), a read of at least MAPPED_MIN_BYTES whose
// bytes are all cached is not copied here at all: all but its last TAIL_BYTES go to the socket as
// views of the file's mapping (the kernel copies them from the page cache when it takes them), and
// only once the kernel took them all (the write's callback) are those last bytes read as above: the
// file's checks (src/splice/base-file.ts) then run after every byte of the views was copied and
// before the read's last bytes leave, so a changed file still fails the answer before it completes.
// A failed or short read is a failure reported to the sink.
// Does NOT: touch the response directly, frame parts, or read ahead.
import type { KernelIo } from '../../kernel-io/kernel-io.js';
import type { BodySink, SegmentCopier } from './body-sink.js';
import { bodyBufferPool, CHUNK_BYTES, TAIL_BYTES, WHOLE_BODY_BYTES } from './buffer-pool.js';
import type { Representation } from './representation.js';

/** Reads shorter than this are copied even when views could be written: the tail's read would cost as much. */
export const MAPPED_MIN_BYTES = 64 * 1024;

export type PositionalRepresentation = Required<Pick<Representation, 'readInto'>> &
  Pick<Representation, 'readIntoCached' | 'cachedViews'>;

export class PositionalCopier implements SegmentCopier {
  private position: number;
  private readonly bufferSize: number;
  private reading = false;
  private stopped = false;
  /** Bytes of a read whose bulk went out as views: the next read is exactly these (its fenced tail). */
  private tail = 0;
  /** Views were handed to the socket and the kernel has not taken them all yet: the tail waits. */
  private viewsInFlight = false;

  constructor(
    private readonly rep: PositionalRepresentation,
    start: number,
    private readonly last: number,
    private readonly sink: BodySink,
    private readonly io?: KernelIo,
    /** The socket is a plain one: cached bytes may go to it as views of the file's mapping. */
    private readonly viaMapping = false,
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
    while (!this.stopped && !this.reading && !this.viewsInFlight && !this.sink.full) {
      if (this.position > this.last) {
        this.stopped = true;
        this.sink.segmentDone();
        return;
      }
      const position = this.position;
      let length = Math.min(this.bufferSize, this.last - position + 1);
      if (this.tail > 0) {
        length = this.tail;
        this.tail = 0;
      } else if (this.viaMapping && length >= MAPPED_MIN_BYTES) {
        const bulk = length - TAIL_BYTES;
        const views = this.rep.cachedViews?.(this.io!, position, bulk);
        if (views !== undefined) {
          this.position = position + bulk;
          this.tail = TAIL_BYTES;
          if (!this.writeViews(views)) return;
          continue;
        }
      }
      const buffer = bodyBufferPool.take(length <= TAIL_BYTES ? TAIL_BYTES : this.bufferSize);
      const cached = this.io && this.rep.readIntoCached?.(this.io, buffer, 0, length, position);
      if (cached !== length) {
        this.readAsync(buffer, position, length);
        return;
      }
      if (!this.deliver(buffer, position, length)) return;
    }
  }

  /**
   * Hands views (of the file's mapping, or bytes in memory) to the sink, and holds the next read
   * back until the kernel took them (the last one's write callback); false when the segment failed.
   */
  private writeViews(views: readonly Buffer[]): boolean {
    this.viewsInFlight = true;
    try {
      views.forEach((view, i) => this.sink.write(view, i < views.length - 1 ? undefined : () => this.viewsTaken()));
    } catch (e) {
      this.sink.fail(e);
      return false;
    }
    return true;
  }

  private viewsTaken(): void {
    this.viewsInFlight = false;
    if (!this.stopped) this.readNext();
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
