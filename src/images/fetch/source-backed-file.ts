// A base image that is served while it is still downloading (IMAGE_SERVE_WHILE_DOWNLOADING):
// a BaseFile whose positional reads come from the `.part` the download writes when the bytes
// are already there, and otherwise from the source itself with ranged reads (HTTP Range, S3
// ranged GET), in aligned chunks kept in a small in-memory LRU so a BMC's neighbouring ranges
// and the layout parse cost one origin read each.
//
// The download is sequential, so the local bytes are always a prefix: `localBytes()` says how
// long (it drops to 0 when the download starts over). Origin reads are bounded: at most
// MAX_ORIGIN_READS at once, each CHUNK_BYTES, each within ORIGIN_READ_TIMEOUT_MS; identical
// chunk requests share one read. With a validator (the source's ETag / Last-Modified) the source
// must still hold the object being downloaded.
//
// Its identity (and so every ETag) is given by the caller from the configuration (sha256, or
// version + size + source validator), never from bytes read so far, so it is the same on every
// replica and does not change when the verified file replaces it.
// Does NOT: download, verify or rename anything (src/images/loader/), or write what it fetched
// to disk (the download owns the `.part`); `fail()` makes every later read fail.
import fs from 'node:fs';
import { LRUCache } from 'lru-cache';
import { describeError } from '../../errors.js';
import { BaseFile } from '../../splice/base-file.js';
import type { PositionalReader } from '../../iso/read-range.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import type { RemoteSource } from './remote-source.js';

/** Aligned unit of origin reads: a typical BMC range (64 KiB–1 MiB) touches one or two. */
export const CHUNK_BYTES = 1024 * 1024;
/** Chunks kept in memory per image (32 MiB): enough for the layout parse and a few BMCs' windows. */
const MAX_CACHED_CHUNKS = 32;
/** Origin reads in flight per image: a range storm must not open hundreds of origin connections. */
const MAX_ORIGIN_READS = 4;
/** One chunk from the origin must arrive within this, else the read (and the request) fails. */
const ORIGIN_READ_TIMEOUT_MS = 30_000;
/** Waiting for a free origin slot counts against the same bound. */
const ORIGIN_QUEUE_LIMIT = 256;

export interface SourceBackedFileOptions {
  /** The `.part` the download writes (opened read-only when first needed). */
  partPath: string;
  /** Where the `.part` is renamed to once verified (opened instead when the `.part` is gone). */
  finalPath: string;
  size: number;
  identity: string;
  modified: Date;
  source: RemoteSource;
  /** The source's validator for the object being downloaded, when it gave one. */
  validator: string | undefined;
  /** How many leading bytes of the `.part` are written now. */
  localBytes(): number;
}

export class SourceBackedFile extends BaseFile {
  private partFd: number | undefined;
  private opening: Promise<number | undefined> | undefined;
  private closed = false;
  private failure: Error | undefined;
  private readonly chunks = new LRUCache<number, Buffer>({ max: MAX_CACHED_CHUNKS });
  private readonly inFlight = new Map<number, Promise<Buffer>>();
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Bytes served from the source and from the `.part`, for /health and tests. */
  readonly served = { origin: 0, local: 0, originReads: 0 };

  constructor(private readonly o: SourceBackedFileOptions) {
    super(o.partPath, undefined, o.size, o.modified, o.identity);
  }

  override get isOpen(): boolean {
    return !this.closed;
  }

  /** Every later read fails with `reason` (e.g. the finished download's sha256 did not match). */
  fail(reason: string): void {
    this.failure = new ImageLoadError('format', reason, 'never');
    this.chunks.clear();
  }

  override read(
    target: Buffer,
    targetOffset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead: number) => void,
  ): void {
    this.readAsync(target, targetOffset, length, position).then(
      (n) => callback(null, n),
      (err: unknown) => callback(err instanceof Error ? err : new Error(describeError(err)), 0),
    );
  }

  /** The same bytes as a PositionalReader, for parsing the layout while downloading. */
  reader(): PositionalReader {
    return {
      read: async (buffer, offset, length, position) => ({
        bytesRead: await this.readAsync(buffer, offset, length, position),
      }),
      stat: () => Promise.resolve({ size: this.size }),
      close: () => Promise.resolve(),
    };
  }

  override close(): void {
    this.closed = true;
    this.chunks.clear();
    const fd = this.partFd;
    this.partFd = undefined;
    if (fd !== undefined) fs.close(fd, () => undefined);
  }

  private async readAsync(target: Buffer, targetOffset: number, length: number, position: number): Promise<number> {
    if (this.closed) throw new Error(`reading base image ${this.path}: file is closed`);
    if (this.failure) throw this.failure;
    const end = Math.min(position + length, this.size);
    if (end <= position) return 0;
    if (end <= this.o.localBytes()) {
      const n = await this.readLocal(target, targetOffset, end - position, position);
      if (n === end - position) {
        this.served.local += n;
        return n;
      }
      // the download started over (the .part was truncated): the source has the bytes
    }
    let done = 0;
    while (position + done < end) {
      const at = position + done;
      const index = Math.floor(at / CHUNK_BYTES);
      const chunk = await this.chunk(index);
      if (this.failure) throw this.failure;
      const from = at - index * CHUNK_BYTES;
      const n = Math.min(chunk.length - from, end - at);
      chunk.copy(target, targetOffset + done, from, from + n);
      done += n;
    }
    this.served.origin += done;
    return done;
  }

  private async readLocal(target: Buffer, targetOffset: number, length: number, position: number): Promise<number> {
    const fd = await this.open();
    if (fd === undefined) return 0;
    let done = 0;
    while (done < length) {
      const n = await new Promise<number>((resolve, reject) =>
        fs.read(fd, target, targetOffset + done, length - done, position + done, (err, got) =>
          err ? reject(err) : resolve(got),
        ),
      );
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  /** The `.part`, else the verified file it was renamed to; undefined when neither exists. */
  private open(): Promise<number | undefined> {
    if (this.partFd !== undefined) return Promise.resolve(this.partFd);
    this.opening ??= openFirst([this.o.partPath, this.o.finalPath]).then((fd) => {
      this.opening = undefined;
      if (fd !== undefined && this.closed) {
        fs.close(fd, () => undefined);
        throw new Error(`reading base image ${this.path}: file is closed`);
      }
      this.partFd = fd;
      return fd;
    });
    return this.opening;
  }

  private chunk(index: number): Promise<Buffer> {
    const cached = this.chunks.get(index);
    if (cached) return Promise.resolve(cached);
    let pending = this.inFlight.get(index);
    if (!pending) {
      pending = this.fetchChunk(index).finally(() => this.inFlight.delete(index));
      this.inFlight.set(index, pending);
    }
    return pending;
  }

  private async fetchChunk(index: number): Promise<Buffer> {
    const start = index * CHUNK_BYTES;
    const end = Math.min(start + CHUNK_BYTES, this.size) - 1;
    const signal = AbortSignal.timeout(ORIGIN_READ_TIMEOUT_MS);
    await this.slot(signal);
    try {
      this.served.originReads++;
      const bytes = await this.o.source.readRange(start, end, this.o.validator, signal).catch((err: unknown) => {
        if (signal.aborted)
          throw new ImageLoadError(
            'upstream',
            `${this.o.source.description} bytes ${start}-${end}: no answer within ${ORIGIN_READ_TIMEOUT_MS / 1000} s`,
            'fast',
          );
        throw err;
      });
      if (!this.closed && !this.failure) this.chunks.set(index, bytes);
      return bytes;
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  /** Waits for one of MAX_ORIGIN_READS slots (bounded queue, same deadline as the read). */
  private async slot(signal: AbortSignal): Promise<void> {
    if (this.active < MAX_ORIGIN_READS) {
      this.active++;
      return;
    }
    if (this.waiting.length >= ORIGIN_QUEUE_LIMIT)
      throw new ImageLoadError('unavailable', `${this.o.source.description}: too many origin reads waiting`, 'fast');
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', timedOut);
        this.active++;
        resolve();
      };
      const timedOut = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new ImageLoadError('upstream', `${this.o.source.description}: no origin read slot in time`, 'fast'));
      };
      signal.addEventListener('abort', timedOut, { once: true });
      this.waiting.push(go);
    });
  }
}

async function openFirst(paths: string[]): Promise<number | undefined> {
  for (const p of paths) {
    const fd = await new Promise<number | undefined>((resolve, reject) =>
      fs.open(p, 'r', (err, got) => {
        if (!err) resolve(got);
        else if (err.code === 'ENOENT') resolve(undefined);
        else reject(err);
      }),
    );
    if (fd !== undefined) return fd;
  }
  return undefined;
}
