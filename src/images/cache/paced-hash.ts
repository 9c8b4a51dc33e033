// Hashing a cached file at a bounded read rate: the background re-hash of the integrity checks
// (src/images/loader/integrity-watch.ts) reads every cached file once per
// IMAGE_INTEGRITY_REHASH_INTERVAL, and must not take the disk or a core from serving. It reads
// one chunk at a time and sleeps whenever it is ahead of `bytesPerSecond`. Abortable.
// Does NOT: know about images or records, or decide anything from the digest.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { sleep } from '../load-failure/retry-policy.js';

/** Read size: large enough for sequential disk reads, small enough to pace smoothly. */
const CHUNK_BYTES = 1024 * 1024;

export interface PacedHashOptions {
  bytesPerSecond: number;
  signal: AbortSignal;
  /** How to wait (tests count the pauses instead of taking them). */
  pause?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** Lower-case hex sha256 of `file`, read at no more than `bytesPerSecond` on average. */
export async function hashFilePaced(file: string, options: PacedHashOptions): Promise<string> {
  const pause = options.pause ?? sleep;
  const now = options.now ?? Date.now;
  const handle = await open(file, 'r');
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const started = now();
    let done = 0;
    for (;;) {
      if (options.signal.aborted) throw options.signal.reason;
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, done);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      done += bytesRead;
      const ahead = started + (done / options.bytesPerSecond) * 1000 - now();
      if (ahead > 0) await pause(ahead, options.signal);
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}
