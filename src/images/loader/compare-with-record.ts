// Comparing one cached file with its record: the integrity rule of the image cache. The
// recorded sha256 is compared, never replaced:
//
//   stat matches the recorded fingerprint (size, mtime, inode, ctime)  → the same file, not read
//   stat differs, or the caller distrusts the file (a watch event, the background re-hash)
//       → wait until the file stops changing, hash it at full speed, and compare:
//         same sha256  → the same bytes with new metadata: the fingerprint is refreshed
//         other sha256 → `changed`, with both digests; the caller quarantines (cached files)
//                        or re-verifies and re-records (a local source used in place)
//
// A record from an older build has no inode/ctime: a matching size and mtime is trusted and the
// fingerprint completed (the background re-hash reaches the file soon, as its `checkedAt` is unset).
// Does NOT: quarantine, log, write records or decide about serving.
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { statIfExists } from '../../fs/atomic-file.js';
import { type VerifiedFile, fileMismatch, hasFullFingerprint, withFingerprint } from '../cache/cache-record.js';
import { hashFile } from '../fetch/verify-iso.js';
import { sleep } from '../load-failure/retry-policy.js';

/** A file that changed is hashed once its stat stayed the same this long (a copy still running). */
const SETTLE_MS = 1_000;
/** ...but no longer than this: a file still changing after it is compared as it is. */
const MAX_SETTLE_MS = 30_000;

export type Comparison =
  /** `verified` is the record to keep (`rewrite`: its fingerprint or check time changed). */
  | { verdict: 'same'; verified: VerifiedFile; rewrite: boolean }
  /** `actualSha256` is undefined when the file is gone or not a regular file. */
  | { verdict: 'changed'; reason: string; actualSha256: string | undefined; stat: Stats | undefined };

export interface CompareOptions {
  /** Why the content must be hashed even when the stat matches; undefined: trust a matching stat. */
  distrusted: string | undefined;
  signal: AbortSignal;
  now: Date;
  /** Hashing starts (the caller holds serving and reports `verifying`). */
  onHashStart?: (size: number) => void;
  onHashBytes?: (bytes: number) => void;
}

export async function compareWithRecord(verified: VerifiedFile, options: CompareOptions): Promise<Comparison> {
  const first = await statIfExists(verified.path);
  if (!first?.isFile())
    return { verdict: 'changed', reason: 'the file is missing', actualSha256: undefined, stat: undefined };
  const mismatch = fileMismatch(verified, first);
  if (mismatch === undefined && options.distrusted === undefined) {
    if (hasFullFingerprint(verified)) return { verdict: 'same', verified, rewrite: false };
    return { verdict: 'same', verified: withFingerprint(verified, first), rewrite: true };
  }
  const st = await settled(verified.path, first, options.signal);
  options.onHashStart?.(st.size);
  const actual = await hashFile(verified.path, options.signal, options.onHashBytes);
  if (actual === verified.sha256 && st.size === verified.size) {
    return {
      verdict: 'same',
      verified: { ...withFingerprint(verified, st), checkedAt: options.now.toISOString() },
      rewrite: true,
    };
  }
  const reason = mismatch ?? options.distrusted ?? 'its content changed';
  return {
    verdict: 'changed',
    reason: `${reason}; its sha256 differs from the recorded one`,
    actualSha256: actual,
    stat: st,
  };
}

/** The file's stat once it stopped changing for SETTLE_MS (at most MAX_SETTLE_MS). */
async function settled(file: string, first: Stats, signal: AbortSignal): Promise<Stats> {
  const deadline = Date.now() + MAX_SETTLE_MS;
  let previous = first;
  for (;;) {
    await sleep(SETTLE_MS, signal);
    const current = await stat(file);
    const same =
      current.size === previous.size && current.mtimeMs === previous.mtimeMs && current.ctimeMs === previous.ctimeMs;
    if (same || Date.now() >= deadline) return current;
    previous = current;
  }
}
