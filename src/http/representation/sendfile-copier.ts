// Copies one segment to a plain TCP socket through the kernel: file stretches whose pages are in
// the page cache by sendfile(2) (one copy, page cache to socket), everything else by send(2) from
// memory, on the socket's SocketFileSender (src/kernel-io/socket-file-sender.ts). The body pump
// uses it when the representation offers stretches() and the socket is a plain one; Node's stream
// is then empty (the pump waits for that) and stays untouched until the segment is done.
//
// Does: per file stretch, sendfile in windows whose pages the kernel reports cached (a window that
// is not is read through readInto instead, on libuv's pool, so the event loop never waits for a
// disk), then the stretch's last FENCED_TAIL_BYTES through readInto (or readIntoCached): the file's
// own checks (src/splice/base-file.ts: changed since it was verified?) run after everything before
// was sent, and the response cannot complete without those bytes. Waits for writability when the
// socket is full (a libuv poll, never a busy loop); reports bytes to the sink as the kernel takes
// them. A failed or short read, or a file that ends early, fails the segment; a socket error is the
// client going away.
// Does NOT: write the head, prefixes or trailer (the pump does, through Node), decide eligibility,
// or keep a buffer beyond the one read it is sending.
import type { SocketFileSender } from '../../kernel-io/socket-file-sender.js';
import type { KernelIo } from '../../kernel-io/kernel-io.js';
import type { BodySink, SegmentCopier } from './body-sink.js';
import { bodyBufferPool, CHUNK_BYTES, TAIL_BYTES } from './buffer-pool.js';
import type { BodyStretch, Representation } from './representation.js';

/**
 * Bytes at the end of every file stretch that are read (and so checked) instead of sent by
 * sendfile: one page, a small copy, and the response's last file bytes.
 */
export const FENCED_TAIL_BYTES = TAIL_BYTES;
/** File stretches shorter than this are read and sent from memory: sendfile plus the tail would cost more. */
export const SENDFILE_MIN_BYTES = 64 * 1024;
/** Pages checked for residency at a time: a download checks as it goes, not all of a GiB up front. */
export const RESIDENCY_WINDOW_BYTES = 8 * 1024 * 1024;

export type ZeroCopyRepresentation = Required<Pick<Representation, 'readInto' | 'stretches'>> &
  Pick<Representation, 'readIntoCached'>;

/** Bytes read into a pool buffer and not yet all sent. */
interface Pending {
  buffer: Buffer;
  from: number;
  to: number;
}

export class SendfileCopier implements SegmentCopier {
  private readonly stretches: BodyStretch[];
  private index = 0;
  /** Bytes of stretches[index] the kernel took. */
  private done = 0;
  /** Bytes of stretches[index] that sendfile may send (checked cached, below the tail). */
  private approved = 0;
  private pending: Pending | undefined;
  private reading = false;
  private waiting = false;
  private stopped = false;

  constructor(
    private readonly rep: ZeroCopyRepresentation,
    start: number,
    last: number,
    private readonly sink: BodySink,
    private readonly sender: SocketFileSender,
    private readonly io: KernelIo,
  ) {
    this.stretches = rep.stretches(start, last);
  }

  resume(): void {
    this.drive();
  }

  stop(): void {
    this.stopped = true;
    if (this.waiting) this.sender.cancel();
    this.waiting = false;
    if (this.pending !== undefined && !this.reading) bodyBufferPool.giveBack(this.pending.buffer);
    this.pending = undefined;
  }

  private drive(): void {
    while (!this.stopped && !this.reading && !this.waiting) {
      if (this.pending !== undefined) {
        if (!this.sendPending(this.pending)) return;
        continue;
      }
      const stretch = this.stretches[this.index];
      if (stretch === undefined) {
        this.stopped = true;
        this.sink.segmentDone();
        return;
      }
      if (stretch.kind === 'memory') {
        const result = this.sender.send(stretch.bytes, this.done, stretch.bytes.length - this.done);
        if (!this.advance(result, stretch.bytes.length)) return;
        continue;
      }
      const bulk = stretch.length - Math.min(FENCED_TAIL_BYTES, stretch.length);
      if (this.done >= this.approved && this.done < bulk) this.approve(stretch, bulk);
      if (this.done < this.approved) {
        const fd = stretch.file.descriptor();
        if (fd === undefined) {
          this.approved = this.done; // closed meanwhile: readInto says why
          continue;
        }
        const result = this.sender.sendFile(fd, stretch.offset + this.done, this.approved - this.done);
        if (result === 0) {
          this.sink.fail(new Error(`the file ended before byte ${stretch.offset + this.done} of this response`));
          return;
        }
        if (!this.advance(result, stretch.length)) return;
        continue;
      }
      this.read(stretch);
    }
  }

  /** Lets sendfile send the next window of the stretch when its pages are cached (else it is read). */
  private approve(stretch: Extract<BodyStretch, { kind: 'file' }>, bulk: number): void {
    const fd = stretch.file.descriptor();
    if (fd === undefined || bulk < SENDFILE_MIN_BYTES) return;
    const window = Math.min(RESIDENCY_WINDOW_BYTES, bulk - this.done);
    if (this.io.residency(fd, stretch.offset + this.done, window) === 1) this.approved = this.done + window;
  }

  /** Reads the next chunk of the stretch (at most up to a window sendfile may take) into a pool buffer. */
  private read(stretch: Extract<BodyStretch, { kind: 'file' }>): void {
    const bulk = stretch.length - Math.min(FENCED_TAIL_BYTES, stretch.length);
    // A stretch too short for sendfile is read whole; in a longer one a chunk stops at the tail,
    // which is read on its own once everything before it was sent.
    const end =
      bulk < SENDFILE_MIN_BYTES || this.done >= bulk
        ? Math.min(stretch.length, this.done + CHUNK_BYTES)
        : Math.min(bulk, this.done + CHUNK_BYTES);
    const length = end - this.done;
    const buffer = bodyBufferPool.take(length <= TAIL_BYTES ? TAIL_BYTES : CHUNK_BYTES);
    const position = stretch.position + this.done;
    if (this.rep.readIntoCached?.(this.io, buffer, 0, length, position) === length) {
      this.pending = { buffer, from: 0, to: length };
      return;
    }
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
      this.pending = { buffer, from: 0, to: length };
      this.drive();
    });
  }

  private sendPending(p: Pending): boolean {
    const stretch = this.stretches[this.index]!;
    const total = stretch.kind === 'file' ? stretch.length : stretch.bytes.length;
    const result = this.sender.send(p.buffer, p.from, p.to - p.from);
    if (result > 0) {
      p.from += result;
      if (p.from === p.to) {
        bodyBufferPool.giveBack(p.buffer);
        this.pending = undefined;
      }
    }
    return this.advance(result, total);
  }

  /** Books the result of a send; false when the copier must wait (socket full) or has failed. */
  private advance(result: number, total: number): boolean {
    if (result > 0) {
      this.done += result;
      this.sink.sent(result);
      if (this.done >= total) {
        this.index++;
        this.done = 0;
        this.approved = 0;
      }
      return true;
    }
    if (this.sender.isFull(result)) {
      this.waiting = true;
      this.sender.whenWritable(() => {
        this.waiting = false;
        this.drive();
      });
      return false;
    }
    this.sink.abort(new Error(`sending to the client failed (errno ${-result})`));
    return false;
  }
}
