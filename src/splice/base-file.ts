// An immutable base file (a cached live ISO) opened once and shared by every request.
//
// Reads go straight to one file descriptor with positional reads, so concurrent
// requests never share a file position and no per-request open() is needed.
// It does not parse anything and does not know about patches (src/splice/spliced-file.ts).
import fs from 'node:fs';
import { FormatError } from '../errors.js';

export interface BaseFileIdentity {
  /** Stable identity of the bytes: a sha256 when known, else device/inode/size/mtime. */
  identity: string;
  size: number;
  /** Served as Last-Modified: the date given at open (derived from the bytes), else the file's mtime. */
  mtime: Date;
}

export class BaseFile implements BaseFileIdentity {
  readonly path: string;
  readonly size: number;
  readonly mtime: Date;
  readonly identity: string;
  private fd: number | undefined;

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
  static async open(path: string, identity?: string, modified?: Date): Promise<BaseFile> {
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(path, 'r', (err, fd) => (err ? reject(err) : resolve(fd))),
    );
    try {
      const stat = await new Promise<fs.Stats>((resolve, reject) =>
        fs.fstat(fd, (err, st) => (err ? reject(err) : resolve(st))),
      );
      if (!stat.isFile()) throw new FormatError(`opening base image ${path}: not a regular file`, { path });
      return new BaseFile(
        path,
        fd,
        stat.size,
        modified ?? stat.mtime,
        identity ?? `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`,
      );
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
    fs.read(this.fd, target, targetOffset, length, position, (err, n) => callback(err, n));
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
    fs.close(fd, () => undefined);
  }
}
