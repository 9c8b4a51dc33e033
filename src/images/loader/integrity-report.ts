// What happens when a cached file fails its comparison with its record
// (src/images/loader/compare-with-record.ts), and what /health says about an image's checks.
//
// Does: move a cached file into the quarantine (src/images/cache/quarantine.ts; deleted when
// IMAGE_QUARANTINE_KEEP is 0) and tell the disk budget; note a changed local source used in place
// (never moved: it is the operator's file, and the truth); publish the mismatch in the image's
// integrity status; log it (error for a cached file, warn for a local source) with the path and
// both digests; count it. Refresh the integrity status from a verified record. Make the fence a
// served file is opened with (src/splice/base-file.ts: reads stop when its stat moves).
// Does NOT: decide that a file changed, hold serving or fetch anything again (the loader does).
import type { Logger } from 'pino';
import type { BaseFile, BaseFileFence } from '../../splice/base-file.js';
import type { CacheBudget } from '../cache/cache-budget.js';
import type { CacheRecord, VerifiedFile } from '../cache/cache-record.js';
import type { Quarantine } from '../cache/quarantine.js';
import type { IntegrityMismatch } from '../catalog/image-status.js';
import type { StoreCatalog } from '../catalog/store-catalog.js';
import type { ImageMetrics } from '../image-metrics.js';
import { redactUrl } from '../os-images-config.js';
import type { ImageSlot } from './image-slot.js';

export interface IntegrityDeps {
  catalog: StoreCatalog;
  budget: CacheBudget;
  logger: Logger;
  metrics: ImageMetrics | undefined;
  /** Undefined without a cache directory (only local files used in place then). */
  quarantine: Quarantine | undefined;
}

export interface FileMismatch {
  path: string;
  /** `ISO` or `minimal ISO`, for messages. */
  what: string;
  reason: string;
  expectedSha256: string;
  actualSha256: string | undefined;
  /** A local source used in place: re-verified and re-recorded, never moved. */
  inPlace: boolean;
  /** Bytes the file held in the cache (0 in place). */
  bytes: number;
  /** What happens next, for the log: `the image is fetched again`, `it is built again`. */
  remedy: string;
}

export async function reportMismatch(slot: ImageSlot, m: FileMismatch, deps: IntegrityDeps, now: Date): Promise<void> {
  const { view } = slot;
  const file = m.inPlace || !slot.files ? m.path : m.path.slice(slot.files.dir.length + 1);
  let mismatch: IntegrityMismatch;
  if (m.inPlace) {
    mismatch = { ...common(m, file, now), action: 're-recorded' };
    deps.logger.warn(
      {
        image: view.key,
        path: redactUrl(m.path),
        recordedSha256: m.expectedSha256,
        sha256: m.actualSha256,
        reason: m.reason,
      },
      'the local base image changed: verified again and recorded with its new sha256 (the local source is the truth)',
    );
  } else {
    const quarantinedAs = deps.quarantine
      ? await deps.quarantine.put(
          m.path,
          {
            image: view.key,
            reason: m.reason,
            expectedSha256: m.expectedSha256,
            ...(m.actualSha256 !== undefined ? { actualSha256: m.actualSha256 } : {}),
          },
          now,
        )
      : undefined;
    if (deps.quarantine) deps.budget.quarantined(slot, m.bytes, await deps.quarantine.list());
    mismatch = {
      ...common(m, file, now),
      action: quarantinedAs ? 'quarantined' : 'deleted',
      ...(quarantinedAs ? { quarantinedAs } : {}),
    };
    deps.logger.error(
      {
        image: view.key,
        path: redactUrl(m.path),
        recordedSha256: m.expectedSha256,
        sha256: m.actualSha256,
        reason: m.reason,
        quarantinedAs,
      },
      `cached ${m.what} failed its integrity check: not served, ${quarantinedAs ? 'quarantined' : 'deleted'}; ${m.remedy}`,
    );
  }
  view.integrity = { ...view.integrity, mismatches: view.integrity.mismatches + 1, lastMismatch: mismatch };
  deps.metrics?.integrityMismatch(view.key);
  deps.catalog.notify();
}

/** The image's integrity status once `record` was checked at `now` (every file compared). */
export function integrityVerified(slot: ImageSlot, record: CacheRecord, now: Date, rehashIntervalMs: number): void {
  const files = record.minimal ? [record.iso, record.minimal] : [record.iso];
  // a file never hashed since its record was written by an older build makes the image unhashed
  const times = files.map((f) => (f.checkedAt === undefined ? undefined : Date.parse(f.checkedAt)));
  const hashedAt = times.includes(undefined) ? undefined : Math.min(...(times as number[]));
  const nextHashAt =
    rehashIntervalMs > 0 ? (hashedAt === undefined ? now.getTime() : hashedAt + rehashIntervalMs) : undefined;
  slot.view.integrity = { ...slot.view.integrity, state: 'verified', checkedAt: now.getTime(), hashedAt, nextHashAt };
}

/**
 * The fence to open `verified` with for serving: a read that finds the file's stat moved fails,
 * and `onChanged` hears of it once with the file that was being read. Undefined without a full
 * fingerprint (never the case once a record was checked by this build).
 */
export function fenceOf(
  verified: VerifiedFile,
  onChanged: (base: BaseFile | undefined, reason: string) => void,
): { fence: BaseFileFence | undefined; opened(base: BaseFile): BaseFile } {
  let served: BaseFile | undefined;
  const { size, mtimeMs, ino, ctimeMs } = verified;
  const fence =
    ino === undefined || ctimeMs === undefined
      ? undefined
      : { expected: { size, mtimeMs, ino, ctimeMs }, onChanged: (reason: string) => onChanged(served, reason) };
  return {
    fence,
    opened: (base) => {
      served = base;
      return base;
    },
  };
}

function common(m: FileMismatch, file: string, now: Date): Omit<IntegrityMismatch, 'action'> {
  return {
    at: now.getTime(),
    file,
    reason: m.reason,
    expectedSha256: m.expectedSha256,
    actualSha256: m.actualSha256,
  };
}
