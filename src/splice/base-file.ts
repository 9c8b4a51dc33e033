// An immutable base file (a cached live ISO) opened once and shared by every request.
//
// Reads go straight to one file descriptor with positional reads, so concurrent
// requests never share a file position and no per-request open() is needed.
// With a fence (the stat the file was verified with), every read is followed by an fstat of the
// descriptor: a read that may have seen bytes written after the verification (the ctime, mtime,
// size or inode moved) fails instead of handing them on, and the fence's owner is told once.
// A write updates the ctime before its bytes become visible, so no byte of a change made through
// the filesystem is ever served; the image store then checks the file (src/images/loader/). The
// store drops the fence of a file it unlinks on purpose (eviction) so streams under way finish.
// Bytes may also leave without a read here: descriptor() hands the descriptor to a sender
// (sendfile(2), src/kernel-io/) while the file is open and its fence has not tripped; such a
// sender reads the last bytes of what it sends through read(), so the fence is checked after
// everything before them left (src/http/representation/sendfile-copier.ts). readCached() is read()
// from the page cache alone (the kernel I/O addon's no-wait read), on the event loop. cachedView()
// is a third way out for bytes: a view of a read-only mapping of the whole file (made once) over a
// range whose pages are all cached, for a writer that hands it to a socket (the kernel copies from
// the page cache: one copy fewer than a read); like descriptor(), its caller reads the last bytes
// it sends through read() or readCached() once the kernel took the view. close() lets go of the
// mapping's file at once (the kernel I/O addon's releaseMapping).
// It does not parse anything and does not know about patches (src/splice/spliced-file.ts).
import { constants as bufferConstants } from 'node:buffer';
import fs from 'node:fs';
import { constants } from 'node:os';
import { describeError, FormatError } from '../errors.js';

/**
 * A positional read that refuses to wait for the disk (the kernel I/O addon's preadv2 with
 * RWF_NOWAIT, src/kernel-io/kernel-io.ts, which satisfies this): bytes read, or -errno.
 * Declared here so that this leaf layer imports nothing above it.
 */
export interface NoWaitReader {
  readNoWait(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
}

/**
 * What cachedView() needs of the kernel I/O addon (src/kernel-io/kernel-io.ts satisfies it): a
 * read-only mapping of a file (or -errno), and whether a range of it is all in memory.
 */
export interface MappingIo {
  mapFile(fd: number, length: number): ArrayBuffer | number;
  mappedResidency(mapping: ArrayBuffer, position: number, length: number): number;
  releaseMapping(mapping: ArrayBuffer): number;
}

export interface BaseFileIdentity {
  /** Stable identity of the bytes: a sha256 when known, else device/inode/size/mtime. */
  identity: string;
  size: number;
  /** Served as Last-Modified: the date given at open (derived from the bytes), else the file's mtime. */
  mtime: Date;
}

/** The stat a fenced file must keep while it is served, and whom to tell when it does not. */
export interface BaseFileFence {
  expected: { size: number; mtimeMs: number; ctimeMs: number; ino: number };
  /** Called once, by the first read that found the file changed. */
  onChanged(reason: string): void;
}

export class BaseFile implements BaseFileIdentity {
  readonly path: string;
  readonly size: number;
  readonly mtime: Date;
  readonly identity: string;
  private fd: number | undefined;
  private fence: BaseFileFence | undefined;
  private changed: string | undefined;
  /** The file system refused no-wait reads once (EOPNOTSUPP): readCached() stops trying. */
  private noWaitRefused = false;
  /**
   * The whole file, mapped read-only on the first cachedView(), a Buffer over it and the addon that
   * made it (close() lets go of the file through it); null once mapping was refused.
   */
  private mapping: { pages: ArrayBuffer; bytes: Buffer; io: MappingIo } | null | undefined;

  /** For subclasses that supply bytes another way (read/close/isOpen overridden); `fd` may be undefined then. */
  protected constructor(path: string, fd: number | undefined, size: number, mtime: Date, identity: string) {
    this.path = path;
    this.fd = fd;
    this.size = size;
    this.mtime = mtime;
    this.identity = identity;
  }

  /**
   * Opens `path` read-only. `identity` (e.g. the verified sha256) overrides the stat-based one;
   * `modified` (a date derived from the content) overrides the file's mtime, which differs
   * between machines holding the same bytes.
   */
  static async open(path: string, identity?: string, modified?: Date, fence?: BaseFileFence): Promise<BaseFile> {
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(path, 'r', (err, fd) => (err ? reject(err) : resolve(fd))),
    );
    try {
      const stat = await new Promise<fs.Stats>((resolve, reject) =>
        fs.fstat(fd, (err, st) => (err ? reject(err) : resolve(st))),
      );
      if (!stat.isFile()) throw new FormatError(`opening base image ${path}: not a regular file`, { path });
      const file = new BaseFile(
        path,
        fd,
        stat.size,
        modified ?? stat.mtime,
        identity ?? `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`,
      );
      file.fence = fence;
      return file;
    } catch (err) {
      fs.close(fd, () => undefined);
      throw err;
    }
  }

  /**
   * Reads `length` bytes at `position` into `target` starting at `targetOffset`;
   * calls back with the number of bytes read (short only at end of file).
   */
  read(
    target: Buffer,
    targetOffset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead: number) => void,
  ): void {
    if (this.fd === undefined) {
      callback(new Error(`reading base image ${this.path}: file is closed`), 0);
      return;
    }
    if (!this.fence) {
      fs.read(this.fd, target, targetOffset, length, position, (err, n) => callback(err, n));
      return;
    }
    fs.read(this.fd, target, targetOffset, length, position, (err, n) => {
      const changed = err ? undefined : this.changedSinceFence();
      if (changed) callback(new Error(`reading base image ${this.path}: ${changed}; not served`), 0);
      else callback(err, n);
    });
  }

  /**
   * read() done now, from the page cache alone (`io.readNoWait`), with the same fence check: the
   * bytes read (all of `length`), or -1 when some are not cached, the file is closed or changed, or
   * the read failed (read() then says why).
   */
  readCached(io: NoWaitReader, target: Buffer, targetOffset: number, length: number, position: number): number {
    const fd = this.fd;
    if (fd === undefined || this.noWaitRefused || this.changed !== undefined) return -1;
    const n = io.readNoWait(fd, target, targetOffset, length, position);
    if (n !== length) {
      if (n === -constants.errno.EOPNOTSUPP) this.noWaitRefused = true;
      return -1;
    }
    return this.fence !== undefined && this.changedSinceFence() !== undefined ? -1 : n;
  }

  /**
   * The descriptor for a sender that moves bytes without reading them here (sendfile), while the
   * file is open and its fence has not tripped; undefined otherwise. Valid until the caller yields
   * to the event loop (close() may run then). The sender must read the last bytes it sends through
   * read() or readCached(), after the rest: their fence check covers what went before.
   */
  descriptor(): number | undefined {
    return this.changed === undefined ? this.fd : undefined;
  }

  /**
   * Bytes `position..position + length - 1` as a view of a read-only mapping of the file, when it
   * is open, its fence has not tripped and every page of the range is in the page cache (so writing
   * the view never waits for the disk); undefined otherwise. Only for the kernel: hand it to a
   * socket write and never read it here (a page that a truncation took away is a SIGBUS in user
   * space, and EFAULT in a write). As with descriptor(), the caller reads the last bytes it sends
   * through read() or readCached() once the kernel took the view (the write's callback): their
   * fence check then covers every byte of it.
   */
  cachedView(io: MappingIo, position: number, length: number): Buffer | undefined {
    const fd = this.fd;
    if (fd === undefined || this.changed !== undefined || this.mapping === null) return undefined;
    if (this.mapping === undefined) {
      const pages = this.size > 0 && this.size <= bufferConstants.MAX_LENGTH ? io.mapFile(fd, this.size) : -1;
      if (typeof pages === 'number') {
        this.mapping = null;
        return undefined;
      }
      this.mapping = { pages, bytes: Buffer.from(pages), io };
    }
    if (io.mappedResidency(this.mapping.pages, position, length) !== 1) return undefined;
    return this.mapping.bytes.subarray(position, position + length);
  }

  /**
   * Stops checking the stat: the file is being unlinked on purpose (evicted) and streams that
   * started on it may finish (its inode keeps the verified bytes; only the link count moves).
   */
  dropFence(): void {
    this.fence = undefined;
  }

  /** Why the file no longer has its fence's stat (told to the fence's owner once); undefined while it has. */
  private changedSinceFence(): string | undefined {
    if (this.changed !== undefined) return this.changed;
    const fence = this.fence!;
    const fd = this.fd;
    let reason: string | undefined;
    if (fd === undefined) return 'file is closed';
    try {
      const st = fs.fstatSync(fd);
      const e = fence.expected;
      if (st.size !== e.size || st.mtimeMs !== e.mtimeMs || st.ctimeMs !== e.ctimeMs || st.ino !== e.ino)
        reason = 'the file changed since it was verified';
    } catch (err) {
      reason = `the file cannot be checked (${describeError(err)})`;
    }
    if (reason !== undefined) {
      this.changed = reason;
      fence.onChanged(reason);
    }
    return reason;
  }

  /** Reads exactly `length` bytes at `position` (for small metadata reads). */
  async readExactly(position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = await new Promise<number>((resolve, reject) =>
        this.read(buffer, done, length - done, position + done, (err, got) => (err ? reject(err) : resolve(got))),
      );
      if (n === 0)
        throw new FormatError(`reading base image ${this.path}: unexpected end of file at ${position + done}`, {
          path: this.path,
        });
      done += n;
    }
    return buffer;
  }

  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    // the file's blocks are not held by the mapping until the GC runs (an evicted ISO's disk space
    // is freed now); a view still queued for a socket fails with EFAULT, as a read would fail now
    if (this.mapping) this.mapping.io.releaseMapping(this.mapping.pages);
    this.mapping = undefined;
    fs.close(fd, () => undefined);
  }
}
