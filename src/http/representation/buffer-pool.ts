// Recycled body buffers for positional reads (Representation.readInto).
//
// Does: hand out buffers of a few fixed sizes from free lists and take them back once the
// socket is done with them, so streaming a body allocates nothing per chunk (no
// external-memory pressure on the GC during a range storm).
// Does NOT: zero buffers (a taken buffer holds old bytes; callers send only what they read
// into it), track buffers in use, or pool sizes it was not built for.

/** Body chunk for long bodies: large enough for few syscalls, small enough to interleave clients. */
export const CHUNK_BYTES = 512 * 1024;
/** A body of at most this many bytes (a BMC's typical Range) goes out in one read and one write. */
export const WHOLE_BODY_BYTES = 1024 * 1024;
/** Small reads: the last page of a file stretch sent by sendfile (src/http/representation/sendfile-copier.ts). */
export const TAIL_BYTES = 4096;
/** Free buffers kept per size: enough for 64 concurrent BMC streams; more are left to the GC. */
export const MAX_FREE_PER_SIZE = 64;

export class BufferPool {
  private readonly free: Map<number, Buffer[]>;

  constructor(
    sizes: readonly number[],
    private readonly maxFreePerSize: number,
  ) {
    this.free = new Map(sizes.map((size) => [size, []]));
  }

  /** A buffer of exactly `size` bytes (one of the pool's sizes), recycled when one is free. */
  take(size: number): Buffer {
    const list = this.free.get(size);
    if (list === undefined) throw new RangeError(`buffer pool has no ${size}-byte size`);
    return list.pop() ?? Buffer.allocUnsafeSlow(size);
  }

  /** Returns a buffer once nothing refers to its bytes any more; foreign sizes are dropped. */
  giveBack(buffer: Buffer): void {
    const list = this.free.get(buffer.length);
    if (list !== undefined && list.length < this.maxFreePerSize) list.push(buffer);
  }

  /** Free buffers currently held for `size`. */
  freeCount(size: number): number {
    return this.free.get(size)?.length ?? 0;
  }
}

/** The process-wide pool the body pump uses. */
export const bodyBufferPool = new BufferPool([TAIL_BYTES, CHUNK_BYTES, WHOLE_BODY_BYTES], MAX_FREE_PER_SIZE);
