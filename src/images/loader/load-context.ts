// The LoadContext one load job hands the pipeline (src/images/loader/obtain-iso.ts): how its
// stages, bytes, room in the cache and notices reach the catalog, the cache budget, the metrics
// and the log.
//
// Does: publish stage changes at once and byte progress throttled (subscribers at most every
// NOTIFY_INTERVAL_MS per image, a log line every `progressLogIntervalMs`); hand the pipeline the
// write gate (writes into the cache wait for the embedded database's start), the free-space
// check and the integrity report (src/images/loader/integrity-report.ts).
// Does NOT: run the pipeline, retry, or publish a ready image (src/images/loader/image-loader.ts).
import type { Logger } from 'pino';
import type { CacheBudget } from '../cache/cache-budget.js';
import { assertRoomFor } from '../cache/free-space.js';
import type { Quarantine } from '../cache/quarantine.js';
import type { WorkingState } from '../catalog/image-status.js';
import type { StoreCatalog } from '../catalog/store-catalog.js';
import type { ImageOrigin } from '../origins/image-origin.js';
import type { ImageMetrics } from '../image-metrics.js';
import { TransferProgress } from '../progress.js';
import type { ImageSlot } from './image-slot.js';
import { reportMismatch } from './integrity-report.js';
import type { LoadContext } from './obtain-iso.js';
import type { RetryPolicy } from '../load-failure/retry-policy.js';
import type { SharedContent } from './shared-content.js';

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
