// The LoadContext one load job hands the pipeline (src/images/loader/obtain-iso.ts, install-iso.ts,
// adopt-legacy.ts): the interface, and how its stages, bytes, room in the cache and notices reach
// the catalog, the cache budget, the metrics and the log.
//
// Does: publish stage changes at once and byte progress throttled (subscribers at most every
// NOTIFY_INTERVAL_MS per image, a log line every `progressLogIntervalMs`); hand the pipeline the
// write gate (writes into the cache wait for the embedded database's start), the free-space
// check and the integrity report (src/images/loader/integrity-report.ts).
// Does NOT: run the pipeline, retry, or publish a ready image (src/images/loader/image-loader.ts).
// Next: src/images/loader/obtain-iso.ts.
import type { Logger } from 'pino';
import type { CacheBudget } from '../cache/cache-budget.js';
import type { CacheFiles, LegacyFiles } from '../cache/cache-layout.js';
import type { RegistryResolution } from '../cache/cache-record.js';
import { assertRoomFor } from '../cache/free-space.js';
import type { Quarantine } from '../cache/quarantine.js';
import type { WorkingState } from '../catalog/image-status.js';
import type { StoreCatalog } from '../catalog/store-catalog.js';
import type { ImageOrigin } from '../origins/image-origin.js';
import type { ImageMetrics } from '../image-metrics.js';
import type { OsImageEntry } from '../os-images-config.js';
import { TransferProgress } from '../progress.js';
import type { RetryPolicy } from '../load-failure/retry-policy.js';
import type { ImageSlot } from './image-slot.js';
import { type FileMismatch, reportMismatch } from './integrity-report.js';
import type { SharedContent, SharedFiles } from './shared-content.js';

export interface LoadContext {
  entry: OsImageEntry;
  /** e.g. `4.17 x86_64`, for messages. */
  label: string;
  origin: ImageOrigin;
  /** Undefined without a cache directory: only local ISOs work, and nothing is persisted. */
  files: CacheFiles | undefined;
  policy: RetryPolicy;
  signal: AbortSignal;
  now(): Date;
  /** Enters a stage; `total`/`already` describe its bytes when it has any. */
  stage(state: WorkingState, total?: number, already?: number): void;
  /** `bytes` more of the current stage are done. */
  advance(bytes: number): void;
  /** This image will occupy `bytes` in the cache in all; throws when the disk budget refuses. */
  reserve(bytes: number): void;
  notice(message: string, context?: Record<string, unknown>): void;
  /** Why the files must be hashed even when their stat matches (serving was held); else undefined. */
  distrusted: string | undefined;
  /** Resolves once writing into the cache may start (the embedded database started first). */
  mayWrite(): Promise<void>;
  /** Throws (slow retry) when writing `bytes` more would leave less than IMAGE_DISK_RESERVE_BYTES free. */
  assertRoom(bytes: number): void;
  /** A file failed its comparison with its record: quarantined (cached) or noted (in place), reported. */
  mismatch(m: FileMismatch): Promise<void>;
  shared: SharedFiles;
  /** Files of this source in the layout before content keying (adopted when there is no record). */
  legacy: readonly LegacyFiles[];
  /** What an earlier pull of this registry source resolved to (a tag is resolved once). */
  registry: RegistryResolution | undefined;
}

/** Subscribers hear about download progress at most this often per image. */
const NOTIFY_INTERVAL_MS = 100;

export interface LoadContextDeps {
  catalog: StoreCatalog;
  budget: CacheBudget;
  logger: Logger;
  policy: RetryPolicy;
  signal: AbortSignal;
  metrics: ImageMetrics | undefined;
  progressLogIntervalMs: number;
  quarantine: Quarantine | undefined;
  /** IMAGE_DISK_RESERVE_BYTES */
  diskReserveBytes: number;
  /** Resolves once writing into the cache may start. */
  writesAllowed: Promise<void>;
  shared: SharedContent;
}

export function loadContextFor(slot: ImageSlot, origin: ImageOrigin, deps: LoadContextDeps): LoadContext {
  let progress: TransferProgress | undefined;
  const { view } = slot;
  return {
    entry: view.entry,
    label: view.label,
    origin,
    files: slot.files,
    policy: deps.policy,
    signal: deps.signal,
    now: () => new Date(),
    stage: (state: WorkingState, total?: number, already?: number) => {
      progress =
        total !== undefined || already !== undefined || state === 'downloading'
          ? new TransferProgress(total, already ?? 0)
          : undefined;
      deps.catalog.setStatus(view, { state, progress });
      if (state === 'downloading') {
        deps.logger.info(
          { image: view.key, source: origin.description, total, resumedAt: already || undefined },
          'downloading base image',
        );
      }
    },
    advance: (bytes: number) => {
      if (!progress) return;
      progress.add(bytes);
      if (view.status.state === 'downloading') deps.metrics?.downloaded(view.key, bytes);
      progressTick(slot, progress, deps);
    },
    reserve: (bytes: number) => deps.budget.reserve(slot, bytes),
    distrusted: slot.distrusted,
    mayWrite: () => untilAllowed(deps.writesAllowed, deps.signal),
    assertRoom: (bytes: number) => {
      if (slot.files) assertRoomFor(slot.files.dir, bytes, deps.diskReserveBytes, view.label);
    },
    mismatch: (m) => reportMismatch(slot, m, deps, new Date()),
    notice: (message: string, context: Record<string, unknown> = {}) =>
      deps.logger.warn({ image: view.key, ...context }, message),
    shared: deps.shared.for(slot),
    legacy: slot.legacy,
    registry: slot.registry,
  };
}

/** Resolves with `allowed`, or rejects with the signal's reason when the store closes first. */
export function untilAllowed(allowed: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void allowed.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** What the comparison of a file with its record (compare-with-record.ts) is given in a load. */
export function compareOptions(ctx: LoadContext) {
  return {
    distrusted: ctx.distrusted,
    signal: ctx.signal,
    now: ctx.now(),
    onHashStart: (size: number) => ctx.stage('verifying', size),
    onHashBytes: (n: number) => ctx.advance(n),
  };
}

/** What verifying a file (src/images/fetch/verify-iso.ts) is given in a load. */
export function verifyOptions(ctx: LoadContext) {
  return {
    ...(ctx.entry.sha256 ? { expectedSha256: ctx.entry.sha256 } : {}),
    signal: ctx.signal,
    onHashBytes: (n: number) => ctx.advance(n),
    label: ctx.label,
    cpuArchitecture: ctx.entry.cpuArchitecture,
  };
}

function progressTick(slot: ImageSlot, progress: TransferProgress, deps: LoadContextDeps): void {
  const now = Date.now();
  if (now - slot.lastNotify >= NOTIFY_INTERVAL_MS) {
    slot.lastNotify = now;
    deps.catalog.notify();
  }
  if (now - slot.lastProgressLog >= deps.progressLogIntervalMs) {
    slot.lastProgressLog = now;
    deps.logger.info(
      { image: slot.view.key, state: slot.view.status.state, ...progress.snapshot() },
      'base image progress',
    );
  }
}
