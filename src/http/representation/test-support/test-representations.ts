// Test representations for the range layer's socket tests: a Readable-backed one that records
// every stream it opens (with injectable failures) and a readInto()-backed one that records
// every positional read. Test support only: excluded from the build.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Representation } from '../representation.js';
import { LAST_MODIFIED, SIZE } from './range-cases.js';

/** Random test data of the planned size. */
export const DATA = randomBytes(SIZE);

export interface RepOptions {
  etag?: string;
  lastModified?: Date;
  contentType?: string;
  filename?: string;
  cacheControl?: string;
  /** Bytes per pushed chunk. */
  chunkSize?: number;
  /** Fail with an error once this many bytes were pushed by one stream. */
  failAfter?: number;
  /** End cleanly (too early) once this many bytes were pushed by one stream. */
  endAfter?: number;
  /** Throw from stream() instead of returning a stream. */
  throwOnStream?: boolean;
}

export interface TestRep extends Representation {
  /** Every stream handed out, in order. */
  opened: { start: number; end: number; stream: Readable }[];
  /** Bytes pulled out of all sources so far. */
  pulled: number;
}

/** Bytes [start, end] of `bytes`, pushed as zero-copy slices of `chunkSize`. */
export class SliceStream extends Readable {
  private pos: number;
  private pushed = 0;

  constructor(
    private readonly bytes: Buffer | undefined,
    start: number,
    private readonly endExclusive: number,
    private readonly options: RepOptions,
    private readonly rep: TestRep,
    private readonly filler: Buffer,
  ) {
    super();
    this.pos = start;
  }

  override _read(): void {
    const { failAfter, endAfter } = this.options;
    if (failAfter !== undefined && this.pushed >= failAfter) {
      this.destroy(new Error('disk on fire'));
      return;
    }
    if (this.pos >= this.endExclusive || (endAfter !== undefined && this.pushed >= endAfter)) {
      this.push(null);
      return;
    }
    const n = Math.min(this.options.chunkSize ?? 16 * 1024, this.endExclusive - this.pos);
    const chunk = this.bytes ? this.bytes.subarray(this.pos, this.pos + n) : this.filler.subarray(0, n);
    this.pos += n;
    this.pushed += n;
    this.rep.pulled += n;
    this.push(chunk);
  }
}

/** A representation over `bytes`, or over `size` filler bytes (for huge bodies) when a number. */
export function testRep(source: Buffer | number, options: RepOptions = {}): TestRep {
  const bytes = typeof source === 'number' ? undefined : source;
  const size = typeof source === 'number' ? source : source.length;
  const filler = Buffer.alloc(options.chunkSize ?? 16 * 1024, 0x5a);
  const rep: TestRep = {
    size,
    etag: options.etag ?? '"v1-abc"',
    lastModified: options.lastModified ?? LAST_MODIFIED,
    ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
    ...(options.filename !== undefined ? { filename: options.filename } : {}),
    ...(options.cacheControl !== undefined ? { cacheControl: options.cacheControl } : {}),
    opened: [],
    pulled: 0,
    stream(start: number, end: number): Readable {
      if (!(start >= 0 && start <= end && end < size)) throw new Error(`bad range ${start}-${end} of ${size}`);
      if (options.throwOnStream) throw new Error('cannot open the image');
      const stream = new SliceStream(bytes, start, end + 1, options, rep, filler);
      rep.opened.push({ start, end, stream });
      return stream;
    },
  };
  return rep;
}

export interface PositionalOptions extends RepOptions {
  /** Fail the read with this index (0-based) with an error. */
  failAtRead?: number;
  /** Copy one byte less than asked on the read with this index. */
  shortAtRead?: number;
}

export interface PositionalRep extends TestRep {
  /** Every read asked for, in order. */
  reads: { position: number; length: number }[];
}

/** A representation with readInto() over `bytes`, or over `size` filler bytes when a number; stream() is never to be used. */
export function positionalRep(source: Buffer | number, options: PositionalOptions = {}): PositionalRep {
  const bytes = typeof source === 'number' ? undefined : source;
  const size = typeof source === 'number' ? source : source.length;
  const rep: PositionalRep = {
    size,
    etag: options.etag ?? '"v1-abc"',
    lastModified: options.lastModified ?? LAST_MODIFIED,
    ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
    ...(options.filename !== undefined ? { filename: options.filename } : {}),
    ...(options.cacheControl !== undefined ? { cacheControl: options.cacheControl } : {}),
    opened: [],
    pulled: 0,
    reads: [],
    stream(): Readable {
      throw new Error('stream() used although readInto() exists');
    },
    readInto(target, targetOffset, length, position, callback) {
      const k = rep.reads.length;
      rep.reads.push({ position, length });
      setImmediate(() => {
        if (!(position >= 0 && length > 0 && position + length <= size && targetOffset + length <= target.length)) {
          callback(new Error(`bad read ${position}+${length} of ${size}`), 0);
          return;
        }
        if (options.failAtRead === k) {
          callback(new Error('disk on fire'), 0);
          return;
        }
        const n = options.shortAtRead === k ? length - 1 : length;
        if (bytes) bytes.copy(target, targetOffset, position, position + n);
        else target.fill(0x5a, targetOffset, targetOffset + n);
        rep.pulled += n;
        callback(null, n);
      });
    },
  };
  return rep;
}
