// A virtual file: a window of an immutable base file (the whole file by default) with byte
// patches laid over it and optional tail buffers appended after it. This is how every
// artifact is served: a discovery ISO (patches), a PXE initrd (window + tail), a kernel
// or rootfs (window only).
//
// `readInto()` (the serving path) copies any range into a caller's buffer: base bytes by
// positional reads of the shared file descriptor, patch/tail bytes from memory, a patch
// shorter than its area zero-filled, so memory per artifact is O(patch bytes), independent
// of the ISO size. `stream()` is a Readable over readInto(), for consumers that want one.
// `readIntoCached()` is readInto() done at once when every base byte is in the page cache (the
// kernel I/O addon); `stretches()` says where a range's bytes lie (runs of the base file, bytes in
// memory) for a sender that moves file bytes with sendfile(2); `cachedViews()` gives a cached range
// as buffers to hand to a socket, base bytes as views of the base file's mapping.
// It knows nothing about ISO structure or HTTP.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { BootsmithError } from '../errors.js';
import type { BaseFile, MappingIo, NoWaitReader } from './base-file.js';

/** Where some bytes of the file lie: a run of the base file, or bytes in memory (patches, tail, zero fill). */
export type Stretch =
  | {
      kind: 'file';
      file: BaseFile;
      /** Offset in the base file of the run's first byte. */
      offset: number;
      length: number;
      /** Offset in this file of the run's first byte. */
      position: number;
    }
  | { kind: 'memory'; bytes: Buffer };

/**
 * Bytes written over `[offset, offset + length)` of the window (offsets relative to the
 * window's start); zero-filled past `bytes.length`.
 */
export interface Patch {
  offset: number;
  length: number;
  bytes: Buffer;
}

export interface SplicedFileParts {
  /** The part of the base file to expose; the whole file when absent. */
  window?: { offset: number; length: number };
  patches?: readonly Patch[];
  /** Buffers appended after the window. */
  tail?: readonly Buffer[];
}

type Segment =
  | { kind: 'base'; start: number; end: number; delta: number } // virtual [start, end) = base [start+delta, end+delta)
  | { kind: 'memory'; start: number; end: number; bytes: Buffer; zeroFrom: number }; // virtual coordinates

/** Chunk size and high-water mark of stream(). */
const READ_CHUNK = 1024 * 1024;
const ZEROS = Buffer.alloc(256 * 1024);

export class SplicedFile {
  readonly base: BaseFile;
  readonly size: number;
  readonly etag: string;
  /** Segments covering [0, size) in order; `start`/`end` are virtual offsets. */
  private readonly segments: Segment[];

  constructor(base: BaseFile, parts: SplicedFileParts = {}) {
    this.base = base;
    const window = parts.window ?? { offset: 0, length: base.size };
    const tail = parts.tail ?? [];
    const sorted = [...(parts.patches ?? [])].sort((a, b) => a.offset - b.offset);
    validateWindow(window, base);
    validatePatches(sorted, window.length, base.path);
    this.segments = buildSegments(sorted, window, tail);
    this.size = window.length + tail.reduce((sum, b) => sum + b.length, 0);
    this.etag = computeEtag(base.identity, window, sorted, tail);
  }

  /** A readable of bytes `start..end` inclusive. */
  stream(start: number, end: number): Readable {
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start <= end && end < this.size)) {
      throw new BootsmithError('internal', `invalid range ${start}-${end} for a ${this.size}-byte file`);
    }
    return new SplicedStream(this, start, end + 1);
  }

  /**
   * Copies `length` bytes at virtual offset `position` into `target` at `targetOffset`, with
   * positional reads of the base file straight into `target` (no buffer of its own); calls
   * back with the number of bytes copied (fewer only at the end of the file).
   */
  readInto(
    target: Buffer,
    targetOffset: number,
    length: number,
    position: number,
    callback: (err: Error | null, copied: number) => void,
  ): void {
    const end = Math.min(position + length, this.size);
    let index = segmentIndexAt(this.segments, position);
    let at = position;
    const step = (): void => {
      while (at < end) {
        const segment = this.segments[index]!;
        if (at >= segment.end) {
          index++;
          continue;
        }
        const limit = Math.min(segment.end, end);
        const into = targetOffset + (at - position);
        if (segment.kind === 'memory') {
          const chunk = memoryChunk(segment, at, limit);
          chunk.copy(target, into);
          at += chunk.length;
          continue;
        }
        const want = limit - at;
        this.base.read(target, into, want, at + segment.delta, (err, n) => {
          if (err) return callback(err, at - position);
          if (n === 0)
            return callback(
              new Error(
                `reading base image ${this.base.path}: file ended at ${at + segment.delta}, expected more bytes`,
              ),
              at - position,
            );
          at += n;
          step();
        });
        return;
      }
      callback(null, at - position);
    };
    step();
  }

  /**
   * readInto() done now, when every base byte of the range is in the page cache (`io`'s no-wait
   * read, with the base file's fence check): the count copied (all of `length`, less only at the
   * end of the file), or -1 when some base byte is not cached or a read failed (readInto says why).
   */
  readIntoCached(io: NoWaitReader, target: Buffer, targetOffset: number, length: number, position: number): number {
    const end = Math.min(position + length, this.size);
    let index = segmentIndexAt(this.segments, position);
    let at = position;
    while (at < end) {
      const segment = this.segments[index]!;
      if (at >= segment.end) {
        index++;
        continue;
      }
      const limit = Math.min(segment.end, end);
      const into = targetOffset + (at - position);
      if (segment.kind === 'memory') {
        const chunk = memoryChunk(segment, at, limit);
        chunk.copy(target, into);
        at += chunk.length;
        continue;
      }
      const want = limit - at;
      if (this.base.readCached(io, target, into, want, at + segment.delta) !== want) return -1;
      at += want;
    }
    return at - position;
  }

  /** Bytes `start..end` inclusive as runs of the base file and bytes in memory, in order, none empty. */
  stretches(start: number, end: number): Stretch[] {
    const out: Stretch[] = [];
    const stop = Math.min(end + 1, this.size);
    let index = segmentIndexAt(this.segments, start);
    let at = start;
    while (at < stop) {
      const segment = this.segments[index]!;
      if (at >= segment.end) {
        index++;
        continue;
      }
      const limit = Math.min(segment.end, stop);
      if (segment.kind === 'memory') {
        const chunk = memoryChunk(segment, at, limit);
        out.push({ kind: 'memory', bytes: chunk });
        at += chunk.length;
        continue;
      }
      out.push({ kind: 'file', file: this.base, offset: at + segment.delta, length: limit - at, position: at });
      at = limit;
    }
    return out;
  }

  /**
   * Bytes `position..position + length - 1` as buffers for a socket write, in order: base runs as
   * views of the base file's mapping (BaseFile.cachedView: kernel-only bytes) and the bytes in
   * memory; undefined when a base run is not all cached or cannot be mapped (readInto then).
   */
  cachedViews(io: MappingIo, position: number, length: number): Buffer[] | undefined {
    const views: Buffer[] = [];
    for (const stretch of this.stretches(position, position + length - 1)) {
      if (stretch.kind === 'memory') {
        views.push(stretch.bytes);
        continue;
      }
      const view = stretch.file.cachedView(io, stretch.offset, stretch.length);
      if (view === undefined) return undefined;
      views.push(view);
    }
    return views;
  }

  /** Reads a whole range into memory (for tests and small artifacts). */
  async read(start: number, end: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.stream(start, end)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

function validateWindow(window: { offset: number; length: number }, base: BaseFile): void {
  const ok =
    Number.isSafeInteger(window.offset) &&
    Number.isSafeInteger(window.length) &&
    window.offset >= 0 &&
    window.length >= 0 &&
    window.offset + window.length <= base.size;
  if (!ok) {
    throw new BootsmithError(
      'internal',
      `window ${window.offset}+${window.length} lies outside ${base.path} (${base.size} bytes)`,
      {
        path: base.path,
      },
    );
  }
}

function validatePatches(sorted: readonly Patch[], baseSize: number, path: string): void {
  let previousEnd = 0;
  for (const p of sorted) {
    const ok =
      Number.isSafeInteger(p.offset) &&
      Number.isSafeInteger(p.length) &&
      p.offset >= previousEnd &&
      p.length >= p.bytes.length &&
      p.offset + p.length <= baseSize;
    if (!ok) {
      throw new BootsmithError(
        'internal',
        `patch at ${p.offset} (+${p.length}, ${p.bytes.length} bytes) is invalid for ${path}`,
        {
          path,
          baseSize,
        },
      );
    }
    previousEnd = p.offset + p.length;
  }
}

function buildSegments(
  sorted: readonly Patch[],
  window: { offset: number; length: number },
  tail: readonly Buffer[],
): Segment[] {
  const segments: Segment[] = [];
  const baseSize = window.length;
  const delta = window.offset;
  let cursor = 0;
  for (const p of sorted) {
    if (p.offset > cursor) segments.push({ kind: 'base', start: cursor, end: p.offset, delta });
    if (p.length > 0) {
      segments.push({
        kind: 'memory',
        start: p.offset,
        end: p.offset + p.length,
        bytes: p.bytes,
        zeroFrom: p.offset + p.bytes.length,
      });
    }
    cursor = p.offset + p.length;
  }
  if (cursor < baseSize) segments.push({ kind: 'base', start: cursor, end: baseSize, delta });
  let virtual = baseSize;
  for (const bytes of tail) {
    if (bytes.length === 0) continue;
    segments.push({
      kind: 'memory',
      start: virtual,
      end: virtual + bytes.length,
      bytes,
      zeroFrom: virtual + bytes.length,
    });
    virtual += bytes.length;
  }
  return segments;
}

function computeEtag(
  identity: string,
  window: { offset: number; length: number },
  sorted: readonly Patch[],
  tail: readonly Buffer[],
): string {
  const hash = createHash('sha256').update(`base:${identity}\nwindow:${window.offset}:${window.length}\n`);
  for (const p of sorted) hash.update(`patch:${p.offset}:${p.length}:${p.bytes.length}\n`).update(p.bytes);
  for (const t of tail) hash.update(`tail:${t.length}\n`).update(t);
  return `"${hash.digest('base64url').slice(0, 32)}"`;
}

/** Index of the segment containing virtual offset `position` (binary search). */
function segmentIndexAt(segments: readonly Segment[], position: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid]!.start <= position) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A Readable over readInto(): one chunk-sized positional read per _read() call. */
class SplicedStream extends Readable {
  constructor(
    private readonly file: SplicedFile,
    private position: number,
    private readonly endExclusive: number,
  ) {
    super({ highWaterMark: READ_CHUNK });
  }

  override _read(): void {
    if (this.position >= this.endExclusive) {
      this.push(null);
      return;
    }
    const length = Math.min(READ_CHUNK, this.endExclusive - this.position);
    const buffer = Buffer.allocUnsafeSlow(length);
    this.file.readInto(buffer, 0, length, this.position, (err, copied) => {
      if (this.destroyed) return;
      if (err || copied !== length) {
        this.destroy(
          err ?? new Error(`reading ${this.file.base.path}: got ${copied} of ${length} bytes at ${this.position}`),
        );
        return;
      }
      this.position += length;
      this.push(buffer);
    });
  }
}

function memoryChunk(segment: Extract<Segment, { kind: 'memory' }>, position: number, limit: number): Buffer {
  if (position < segment.zeroFrom) {
    const from = position - segment.start;
    return segment.bytes.subarray(from, from + Math.min(limit, segment.zeroFrom) - position);
  }
  return ZEROS.subarray(0, Math.min(limit - position, ZEROS.length));
}
