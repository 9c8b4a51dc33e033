// Refusing a write that would leave too little room on the disk holding the image cache: before
// a download or an extraction of a known size starts, the filesystem's free space (statfs) must
// cover the bytes still to come plus IMAGE_DISK_RESERVE_BYTES, the room kept for the rest of
// DATA_DIR (the embedded PostgreSQL's WAL and tables, keys). A refused image fails alone, on the
// slow schedule, with the numbers in its reason; nothing has been written.
// Does NOT: replace the ENOSPC handling of src/images/load-failure/disk-full.ts (a size may be unknown,
// and other writers share the disk), or apply IMAGE_CACHE_MAX_BYTES (src/images/cache/cache-budget.ts).
import { statfsSync } from 'node:fs';
import { ImageLoadError } from '../load-failure/load-error.js';
import { formatBytes } from '../progress.js';

/** Bytes free for an unprivileged writer on the filesystem holding `dir`; undefined when statfs fails. */
export function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/** Throws (slow retry) when writing `neededBytes` more into `dir` would leave less than `reserveBytes` free. */
export function assertRoomFor(dir: string, neededBytes: number, reserveBytes: number, label: string): void {
  const free = freeBytes(dir);
  if (free === undefined || neededBytes + reserveBytes <= free) return;
  throw new ImageLoadError(
    'unavailable',
    `${label}: the disk holding ${dir} is too full: the image needs ${formatBytes(neededBytes)} more, ` +
      `${formatBytes(free)} are free and ${formatBytes(reserveBytes)} stay free for the rest of DATA_DIR ` +
      '(IMAGE_DISK_RESERVE_BYTES); nothing was written, retried later',
    'slow',
    { dir, neededBytes, freeBytes: free, reserveBytes },
  );
}
