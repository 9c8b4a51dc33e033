// The disk side of the image store's write side: keeps the cache within IMAGE_CACHE_MAX_BYTES.
//
// Does: account the bytes each image holds (and files of images no longer configured); reserve
// room for an image, evicting the least recently served re-fetchable images and unreferenced
// files (src/images/cache/disk-budget.ts plans which); evict (publish `evicted`, unlink the
// files, retire the open BaseFiles after a grace period so streams already under way finish).
// Only images not served for `minIdleMs` are eligible, so that grace covers any response still
// being sent.
// Does NOT: load images, schedule retries, or answer requests (src/images/catalog/).
import path from 'node:path';
import type { Logger } from 'pino';
import { describeError } from '../../errors.js';
import type { BaseFile } from '../../splice/base-file.js';
import type { StoreCatalog } from '../catalog/store-catalog.js';
import { type ImageSlot, setRecord } from '../loader/image-slot.js';
import { ImageLoadError } from '../loader/load-error.js';
import { formatBytes, formatDuration } from '../progress.js';
import { removeFiles } from '../../fs/atomic-file.js';
import { scanCache } from './cache-scan.js';
import { QUARANTINE_DIR_NAME, type QuarantinedFile } from './quarantine.js';
import { planEviction } from './disk-budget.js';

/** Images served more recently than this are never evicted: their streams may still be running. */
export const DEFAULT_EVICTION_MIN_IDLE_MS = 15 * 60_000;
/** How long an evicted image's open files stay open for streams that started before. */
export const DEFAULT_RETIRE_GRACE_MS = 30 * 60_000;

export interface CacheBudgetOptions {
  /** The images directory; undefined without DATA_DIR (nothing is cached then). */
  dir: string | undefined;
  maxBytes: number | undefined;
  minIdleMs: number;
  retireGraceMs: number;
}

export class CacheBudget {
  private readonly retired = new Map<BaseFile, NodeJS.Timeout>();
  private orphans: Array<{ file: string; bytes: number }> = [];

  constructor(
    private readonly slots: readonly ImageSlot[],
    private readonly catalog: StoreCatalog,
    private readonly logger: Logger,
    private readonly options: CacheBudgetOptions,
  ) {}

  /**
   * Makes `slot` hold `bytes` of the cache in all, evicting least recently served images
   * (and unreferenced files) when the budget requires. Throws ImageLoadError `on-demand` when
   * images served recently leave no room, `never` when the image alone exceeds the budget.
   */
  reserve(slot: ImageSlot, bytes: number): void {
    slot.expectedBytes = bytes;
    const max = this.options.maxBytes;
    if (max === undefined || bytes <= slot.diskBytes) {
      slot.diskBytes = Math.max(slot.diskBytes, bytes);
      return;
    }
    if (bytes > max) {
      throw new ImageLoadError(
        'unavailable',
        `${slot.view.label} needs ${formatBytes(bytes)}, more than IMAGE_CACHE_MAX_BYTES (${formatBytes(max)})`,
        'never',
      );
    }
    const minIdleMs = this.options.minIdleMs;
    const now = Date.now();
    const candidates = [
      ...this.orphans.map((o) => ({ id: `file:${o.file}`, bytes: o.bytes, lastUsedAt: 0 })),
      ...this.slots
        .filter((s) => s !== slot && s.view.status.state === 'ready' && s.record && !s.record.inPlace && !s.job)
        .map((s) => ({ id: `image:${s.view.key}`, bytes: s.diskBytes, lastUsedAt: s.view.lastServedAt ?? s.readyAt })),
    ];
    const used = this.usedBytes() - slot.diskBytes;
    const plan = planEviction(candidates, used, bytes, max, now, minIdleMs);
    if (!plan.fits) {
      throw new ImageLoadError(
        'unavailable',
        `not cached: IMAGE_CACHE_MAX_BYTES (${formatBytes(max)}) is short by ${formatBytes(plan.shortBy)} for ${formatBytes(bytes)}, ` +
          `and images served in the last ${formatDuration(minIdleMs / 1000)} are kept`,
        'on-demand',
      );
    }
    for (const victim of plan.victims) {
      if (victim.startsWith('file:')) this.removeOrphan(victim.slice('file:'.length));
      else this.evict(this.slots.find((s) => `image:${s.view.key}` === victim)!);
    }
    slot.diskBytes = bytes;
  }

  /** Forgets and unlinks everything `slot` has in the cache; a new load of it waits for the unlinks. */
  removeSlotFiles(slot: ImageSlot): void {
    setRecord(slot, undefined);
    slot.diskBytes = 0;
    if (!slot.files) return;
    slot.removal = removeFiles(...slot.files.all()).catch((err: unknown) =>
      this.logger.error({ image: slot.view.key, err: describeError(err) }, 'removing cached files failed'),
    );
  }

  /**
   * `bytes` of `slot`'s files went into the quarantine, which now holds `files`: they count as
   * unreferenced from now on (removed first when room is needed), no longer as the image's.
   */
  quarantined(slot: ImageSlot, bytes: number, files: readonly QuarantinedFile[]): void {
    slot.diskBytes = Math.max(0, slot.diskBytes - bytes);
    const prefix = `${QUARANTINE_DIR_NAME}/`;
    this.orphans = [...this.orphans.filter((o) => !o.file.startsWith(prefix)), ...files];
  }

  /** Attributes the files already in the cache: to their image, or as unreferenced (evicted first). */
  async takeStock(): Promise<void> {
    const dir = this.options.dir;
    if (!dir) return;
    try {
      const { ownedBytes, unreferenced } = await scanCache(
        dir,
        this.slots.map((s) => s.files),
        { tidy: true },
      );
      this.slots.forEach((slot, i) => (slot.diskBytes = ownedBytes[i] ?? 0));
      this.orphans = unreferenced;
      if (unreferenced.length) {
        const bytes = unreferenced.reduce((sum, o) => sum + o.bytes, 0);
        this.logger.info(
          { dir, files: unreferenced.length, bytes },
          'cache holds files of images no longer configured (removed first when the disk budget needs room)',
        );
      }
    } catch (err) {
      this.logger.error({ dir, err: describeError(err) }, 'image cache directory unusable');
    }
  }

  /** Closes every retired file now (the image store is closing). */
  close(): void {
    for (const [base, timer] of this.retired) {
      clearTimeout(timer);
      base.close();
    }
    this.retired.clear();
  }

  private usedBytes(): number {
    return this.slots.reduce((sum, s) => sum + s.diskBytes, 0) + this.orphans.reduce((sum, o) => sum + o.bytes, 0);
  }

  private evict(slot: ImageSlot): void {
    if (slot.view.status.state !== 'ready' || !slot.files) return;
    const { image } = slot.view.status;
    const freed = slot.diskBytes;
    this.catalog.setStatus(slot.view, { state: 'evicted', reason: 'evicted to stay within IMAGE_CACHE_MAX_BYTES' });
    for (const base of [image.base, image.minimal?.base]) if (base) this.retire(base);
    this.removeSlotFiles(slot);
    const lastServedAt = slot.view.lastServedAt;
    this.logger.info(
      { image: slot.view.key, freed, lastServedAt: lastServedAt && new Date(lastServedAt).toISOString() },
      'base image evicted',
    );
  }

  /** Closes `base` once streams that started before its eviction had time to finish. */
  private retire(base: BaseFile): void {
    base.dropFence(); // its unlink moves the ctime: not a change of the bytes being streamed
    const timer = setTimeout(() => {
      this.retired.delete(base);
      base.close();
    }, this.options.retireGraceMs).unref();
    this.retired.set(base, timer);
  }

  private removeOrphan(file: string): void {
    this.orphans = this.orphans.filter((o) => o.file !== file);
    void removeFiles(path.join(this.options.dir!, file));
    this.logger.info({ file }, 'unreferenced cache file removed for the disk budget');
  }
}
