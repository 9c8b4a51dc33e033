// The sink of every byte stream the store writes into its cache (a download, an ISO extracted
// from a zip): writes each chunk to an open file at increasing positions, then feeds it to a
// sha256 and reports its size, in that order, so the hash always matches the bytes on disk.
// It neither opens, syncs nor closes the file.
import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

export class HashingFileWriter extends Writable {
  /** Offset of the next byte; after a failure, the end of the bytes known to be written. */
  position: number;

  constructor(
    private readonly handle: FileHandle,
    start: number,
    private readonly hash: Hash,
    private readonly onBytes: (bytes: number) => void,
  ) {
    super({ highWaterMark: 1024 * 1024 });
    this.position = start;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.handle.write(chunk, 0, chunk.length, this.position).then(() => {
      this.position += chunk.length;
      this.hash.update(chunk);
      this.onBytes(chunk.length);
      callback();
    }, callback);
  }
}
