// The disk side of the image store's write side: keeps the cache within IMAGE_CACHE_MAX_BYTES.
//
// Does: account the bytes each image holds (a content-keyed file shared by several sources
// counted once) and files of images no longer configured; reserve room for an image, evicting
// the least recently served re-fetchable files and unreferenced files
// (src/images/cache/disk-budget.ts plans which); evict (publish `evicted` for every source served
// from the file, unlink it once no source's record names it, retire the open BaseFiles after a
// grace period so streams already under way finish). A file is a candidate only when every
// source it serves is ready and was not served for `minIdleMs`, so that grace covers any
// response still being sent.
// It sees each source through the narrow BudgetSlot (src/images/cache/budget-slot.ts).
// Does NOT: load images, schedule retries, or answer requests (src/images/catalog/).
import path from 'node:path';
import type { Logger } from 'pino';
import { describeError } from '../../errors.js';
import type { BaseFile } from '../../splice/base-file.js';
import type { StoreCatalog } from '../catalog/store-catalog.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { formatBytes, formatDuration } from '../progress.js';
import { removeFiles } from '../../fs/atomic-file.js';
import type { BudgetSlot } from './budget-slot.js';
import { recordedContentNames } from './cache-layout.js';
import { readRecord } from './cache-record.js';
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
    private readonly slots: readonly BudgetSlot[],
    private readonly catalog: StoreCatalog,
    private readonly logger: Logger,
    private readonly options: CacheBudgetOptions,
  ) {}

  /**
   * Makes `slot` hold `bytes` of the cache in all, evicting least recently served images
   * (and unreferenced files) when the budget requires. Throws ImageLoadError `on-demand` when
   * images served recently leave no room, `never` when the image alone exceeds the budget.
   */
  reserve(slot: BudgetSlot, bytes: number): void {
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
    const groups = this.evictableGroups(slot);
    const candidates = [
      ...this.orphans.map((o) => ({ id: `file:${o.file}`, bytes: o.bytes, lastUsedAt: 0 })),
      ...[...groups].map(([file, members]) => ({
        id: `content:${file}`,
        bytes: Math.max(...members.map((s) => s.diskBytes)),
        lastUsedAt: Math.max(...members.map((s) => s.view.lastServedAt ?? s.readyAt)),
      })),
    ];
    const used = this.usedBytes(slot);
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
      else for (const member of groups.get(victim.slice('content:'.length))!) this.evict(member);
    }
    slot.diskBytes = bytes;
  }

  /**
   * Forgets and unlinks everything `slot` has in the cache — its content files only once no other
   * source's record names them —; a new load of it waits for the unlinks.
   */
  removeSlotFiles(slot: BudgetSlot): void {
    const record = slot.record;
    slot.forgetRecord();
    slot.diskBytes = 0;
    if (!slot.files) return;
    const content = record
      ? [...(record.inPlace ? [] : [record.iso.path]), ...(record.minimal ? [record.minimal.path] : [])]
      : [];
    // only files of the cache directory, and only once no other source's record names them
    const unshared = content.filter(
      (file) =>
        path.dirname(file) === this.options.dir &&
        !this.slots.some((s) => s.record && (s.record.iso.path === file || s.record.minimal?.path === file)),
    );
    slot.removal = removeFiles(...slot.files.all(), ...unshared).catch((err: unknown) =>
      this.logger.error({ image: slot.view.key, err: describeError(err) }, 'removing cached files failed'),
    );
  }

  /**
   * `bytes` of `slot`'s files went into the quarantine, which now holds `files`: they count as
   * unreferenced from now on (removed first when room is needed), no longer as the image's.
   */
  quarantined(slot: BudgetSlot, bytes: number, files: readonly QuarantinedFile[]): void {
    slot.diskBytes = Math.max(0, slot.diskBytes - bytes);
    const prefix = `${QUARANTINE_DIR_NAME}/`;
    this.orphans = [...this.orphans.filter((o) => !o.file.startsWith(prefix)), ...files];
  }

  /** Attributes the files already in the cache: to their image, or as unreferenced (evicted first). */
  async takeStock(): Promise<void> {
    const dir = this.options.dir;
    if (!dir) return;
    try {
      const { ownedBytes, unreferenced } = await scanCache(dir, await Promise.all(this.slots.map(ownerOf)), {
        tidy: true,
      });
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

  /** Bytes the cache holds without `except`'s: a content file several sources share counts once. */
  private usedBytes(except: BudgetSlot): number {
    const byFile = new Map<string, number>();
    for (const s of this.slots) {
      if (s === except) continue;
      const key = s.record && !s.record.inPlace ? `file:${s.record.iso.path}` : `slot:${this.slots.indexOf(s)}`;
      byFile.set(key, Math.max(byFile.get(key) ?? 0, s.diskBytes));
    }
    const shared = except.record && !except.record.inPlace ? `file:${except.record.iso.path}` : undefined;
    if (shared) byFile.delete(shared); // what `except` reserves includes the file it shares
    let sum = this.orphans.reduce((total, o) => total + o.bytes, 0);
    for (const bytes of byFile.values()) sum += bytes;
    return sum;
  }

  /**
   * Ready, cached files by path with the sources served from them, for eviction: a file any of
   * whose sources is busy (loading, not ready) or is `reserving` itself is not a candidate.
   */
  private evictableGroups(reserving: BudgetSlot): Map<string, BudgetSlot[]> {
    const groups = new Map<string, BudgetSlot[]>();
    const blocked = new Set<string>();
    for (const s of this.slots) {
      const file = s.record && !s.record.inPlace ? s.record.iso.path : undefined;
      if (file === undefined) continue;
      if (s === reserving || s.view.status.state !== 'ready' || s.job) blocked.add(file);
      else groups.set(file, [...(groups.get(file) ?? []), s]);
    }
    for (const file of blocked) groups.delete(file);
    return groups;
  }

  private evict(slot: BudgetSlot): void {
    // one stored file may serve several sources: the message says which file went
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

/**
 * Which files of the cache directory belong to `slot`: its source's files, the content files its
 * record names (the minimal ISO of a file used in place too), and — until it has a record of its
 * own — its files in the layout before content keying (adopted at its first load, so the disk
 * budget must not remove them first).
 */
async function ownerOf(slot: BudgetSlot): Promise<{ owns(fileName: string): boolean } | undefined> {
  const files = slot.files;
  if (!files) return undefined;
  const record = await readRecord(files.record);
  const content = new Set(record ? recordedContentNames(record) : []);
  const legacy = record ? [] : slot.legacy;
  return {
    owns: (name) =>
      files.owns(name) ||
      content.has(name) ||
      content.has(name.replace(/\.part$/, '')) ||
      legacy.some((l) => l.owns(name)),
  };
}
