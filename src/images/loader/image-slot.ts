// The write side's bookkeeping for one configured source (the OS_IMAGES entries naming it): what
// the loader and the cache budget know about it beyond what the catalog publishes (the verified
// record, the running job, the retry timer, the bytes it holds in the cache).
//
// It extends the disk budget's BudgetSlot (src/images/cache/budget-slot.ts: the view, files,
// record and bytes the budget reads).
// Does: declare the slot and the two helpers that keep the catalog's sha256, file name and
// registry resolution in step with the record. Does NOT: load, evict or publish anything itself.
import path from 'node:path';
import type { BudgetSlot } from '../cache/budget-slot.js';
import type { CacheFiles, LegacyFiles } from '../cache/cache-layout.js';
import type { CacheRecord, RegistryResolution } from '../cache/cache-record.js';
import type { CatalogSlot } from '../catalog/store-catalog.js';
import type { ImageOrigin } from '../origins/image-origin.js';

export interface ImageSlot extends BudgetSlot {
  origin: ImageOrigin | undefined;
  /** What the last pull of a registry source resolved to; kept when the record goes (eviction). */
  registry: RegistryResolution | undefined;
  record: CacheRecord | undefined;
  job: Promise<void> | undefined;
  retryTimer: NodeJS.Timeout | undefined;
  slowFailures: number;
  readyAt: number;
  servedPersistedAt: number;
  lastProgressLog: number;
  lastNotify: number;
  /** The file served while the image downloads (IMAGE_SERVE_WHILE_DOWNLOADING), closed with the store. */
  provisional?: { close(): void };
  /**
   * Set when serving was held because a file may have changed (src/images/loader/integrity-watch.ts):
   * why. The next load hashes the image's files even when their stat matches, then clears it.
   */
  distrusted?: string;
}

export function newSlot(
  view: CatalogSlot,
  files: CacheFiles | undefined,
  legacy: readonly LegacyFiles[] = [],
): ImageSlot {
  const slot: ImageSlot = {
    view,
    files,
    legacy,
    origin: undefined,
    registry: undefined,
    record: undefined,
    job: undefined,
    removal: undefined,
    retryTimer: undefined,
    slowFailures: 0,
    diskBytes: 0,
    expectedBytes: undefined,
    readyAt: 0,
    servedPersistedAt: 0,
    lastProgressLog: 0,
    lastNotify: 0,
    forgetRecord: () => setRecord(slot, undefined),
  };
  return slot;
}

/**
 * Sets (or forgets) the verified record, and the sha256, file name, registry resolution (and,
 * forgotten, the integrity state) the catalog reports.
 */
export function setRecord(slot: ImageSlot, record: CacheRecord | undefined): void {
  slot.record = record;
  slot.view.sha256 = record?.iso.sha256;
  slot.view.file = record ? (record.inPlace ? record.iso.path : path.basename(record.iso.path)) : undefined;
  if (record?.registry) slot.registry = record.registry;
  const r = slot.registry;
  slot.view.registry = r
    ? {
        resolved: r.resolved,
        pulledFrom: r.pulledFrom,
        ...(r.machineOsImages !== undefined ? { machineOsImages: r.machineOsImages } : {}),
      }
    : undefined;
  if (!record) slot.view.integrity = { ...slot.view.integrity, state: 'unverified' };
}
