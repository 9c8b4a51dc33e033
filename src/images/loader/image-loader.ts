// The loading half of the image store's write side: the bounded work that gets each configured
// image ready and publishes it into the catalog.
//
// Does: run one load job per image (at most `concurrency` at a time, src/images/loader/semaphore.ts)
// through the pipeline of src/images/loader/obtain-iso.ts; open the verified file into a LiveImage
// and publish it; publish progress (throttled) and failures; retry failures on the schedule of
// src/images/load-failure/retry-policy.ts (a failed image never affects the others); start the minimal
// variant; fetch an evicted image again when the catalog reports it was requested; persist when an
// image was last served (at most once a minute per image). Hold a ready image at once (its open
// files closed, `verifying`: 503) when the integrity checks (src/images/loader/integrity-watch.ts)
// doubt one of its files, and compare its files with their records through a normal load: a
// match serves it again, a mismatch quarantines the file and fetches the image again.
// Does NOT: answer requests (src/images/catalog/), or decide what to evict
// (src/images/cache/cache-budget.ts, which it asks for room).
import path from 'node:path';
import type { Logger } from 'pino';
import { describeError } from '../../errors.js';
import { BaseFile } from '../../splice/base-file.js';
import type { CacheBudget } from '../cache/cache-budget.js';
import { type CacheRecord, type VerifiedFile, readRecord, writeRecord } from '../cache/cache-record.js';
import type { Quarantine } from '../cache/quarantine.js';
import type { LiveImage, MinimalState } from '../catalog/live-image.js';
import type { CatalogSlot, StoreCatalog } from '../catalog/store-catalog.js';
import { originOfEntry } from '../origins/origin-of.js';
import type { ImageMetrics } from '../image-metrics.js';
import type { ImageStoreSettings } from '../store-settings.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { type RetryPolicy, retryClassOf, slowDelayMs } from '../load-failure/retry-policy.js';
import { contentDate } from './content-date.js';
import { type ImageSlot, setRecord } from './image-slot.js';
import { fenceOf, integrityVerified } from './integrity-report.js';
import { IntegrityWatch } from './integrity-watch.js';
import type { RebuildMinimalIso } from './rebuild-minimal-iso.js';
import { loadContextFor } from './load-context.js';
import { obtainIso } from './obtain-iso.js';
import { prepareMinimal } from './prepare-minimal.js';
import { Semaphore } from '../../semaphore.js';
import { ServeWhileDownloading } from './serve-while-downloading.js';
import type { SharedContent } from './shared-content.js';

/** How often a served image's record is rewritten: the time is for eviction order, not an audit. */
const SERVED_PERSIST_INTERVAL_MS = 60_000;

export interface ImageLoaderOptions {
  settings: ImageStoreSettings;
  policy: RetryPolicy;
  metrics: ImageMetrics | undefined;
  progressLogIntervalMs: number;
  rebuildMinimalIso: RebuildMinimalIso;
  /** Undefined without a cache directory. */
  quarantine: Quarantine | undefined;
  /** Writes into the cache (downloads, extractions, minimal builds) wait for it; never rejects. */
  writesAllowed: Promise<void>;
  /** The content-keyed files the sources share (also the cache budget's). */
  shared: SharedContent;
}

export class ImageLoader {
  private readonly semaphore: Semaphore;
  private readonly abort = new AbortController();
  private readonly bySlot = new Map<CatalogSlot, ImageSlot>();
  private readonly watch: IntegrityWatch;
  /** Record writes started outside a load job (served times, re-hash times, doubts): close() waits for them. */
  private readonly recordWrites = new Set<Promise<void>>();

  constructor(
    private readonly slots: readonly ImageSlot[],
    private readonly catalog: StoreCatalog,
    private readonly budget: CacheBudget,
    private readonly logger: Logger,
    private readonly options: ImageLoaderOptions,
  ) {
    this.semaphore = new Semaphore(options.settings.concurrency);
    for (const slot of slots) this.bySlot.set(slot.view, slot);
    this.watch = new IntegrityWatch(
      slots,
      options.settings.integrity,
      {
        suspect: (slot, reason) => this.hold(slot, reason),
        hashed: (slot, file, at) => this.rehashed(slot, file, at),
        statChecked: (slot, at) => {
          slot.view.integrity = { ...slot.view.integrity, checkedAt: at.getTime() };
        },
      },
      logger,
    );
    catalog.subscribe(() => this.watch.sync());
  }

  /** Resolves once each image has become ready or failed (or was left for later). Never throws. */
  async loadAll(): Promise<void> {
    await this.budget.takeStock();
    this.watch.start();
    await Promise.all(this.slots.map((slot) => this.start(slot)));
  }

  /**
   * A file of the ready image `slot` may have changed (integrity-watch.ts): stop serving it at
   * once — its open files are closed, so streams under way end too — and compare its files with
   * their records through a normal load (hashing them whatever their stat). Serving resumes when
   * they match; a changed file is quarantined and the image fetched again.
   */
  hold(slot: ImageSlot, reason: string): void {
    const status = slot.view.status;
    const record = slot.record;
    if (this.abort.signal.aborted || status.state !== 'ready' || status.image.unverified || !record) return;
    slot.distrusted = reason;
    this.watch.cancel(slot);
    closeImage(status.image);
    slot.view.integrity = { ...slot.view.integrity, state: 'checking' };
    this.catalog.setStatus(slot.view, { state: 'verifying', progress: undefined });
    this.logger.warn(
      { image: slot.view.key, reason },
      'a cached file of a served image may have changed: serving held while it is compared with its record',
    );
    // persisted first, so a restart before the comparison ends still compares
    const persisted = this.persist(slot, { ...record, distrusted: reason }, 'recording the doubt failed');
    void Promise.all([slot.job, persisted]).then(() => this.start(slot));
  }

  /** The catalog was asked for an evicted image (CatalogHooks.requested). */
  requested(view: CatalogSlot): void {
    const slot = this.bySlot.get(view);
    if (slot) void this.start(slot);
  }

  /** The catalog served an image (CatalogHooks.served): persists the time, at most once a minute. */
  served(view: CatalogSlot): void {
    const slot = this.bySlot.get(view);
    const now = slot?.view.lastServedAt;
    const record = slot?.record;
    if (
      !slot ||
      now === undefined ||
      !record ||
      !slot.files ||
      now - slot.servedPersistedAt < SERVED_PERSIST_INTERVAL_MS
    )
      return;
    slot.servedPersistedAt = now;
    record.lastServedAt = new Date(now).toISOString();
    void this.persist(slot, record, 'recording when an image was served failed');
  }

  /** Stops all work (aborting downloads; .part files stay for a later resume) and closes every file. */
  async close(): Promise<void> {
    this.abort.abort(new ImageLoadError('unavailable', 'the image store is closing', 'fast'));
    await this.watch.close();
    for (const slot of this.slots) clearTimeout(slot.retryTimer);
    await Promise.all(this.slots.map((s) => s.job));
    await Promise.all(this.recordWrites);
    for (const slot of this.slots) {
      if (slot.view.status.state === 'ready') closeImage(slot.view.status.image);
      slot.origin?.close();
      slot.provisional?.close();
    }
  }

  private start(slot: ImageSlot): Promise<void> {
    if (this.abort.signal.aborted || slot.view.status.state === 'ready') return slot.job ?? Promise.resolve();
    slot.job ??= this.run(slot).finally(() => {
      slot.job = undefined;
    });
    return slot.job;
  }

  private async run(slot: ImageSlot): Promise<void> {
    clearTimeout(slot.retryTimer);
    let release: (() => void) | undefined;
    let provisional: ServeWhileDownloading | undefined;
    const mismatches = slot.view.integrity.mismatches;
    try {
      await slot.removal;
      if (slot.view.status.state === 'evicted' && slot.expectedBytes !== undefined)
        this.budget.reserve(slot, slot.expectedBytes);
      if (slot.view.status.state !== 'verifying') this.catalog.setStatus(slot.view, { state: 'pending' });
      release = await this.semaphore.acquire(this.abort.signal);
      // a doubt recorded by a process that stopped before comparing
      if (slot.distrusted === undefined && slot.files)
        slot.distrusted = (await readRecord(slot.files.record))?.distrusted;
      const started = Date.now();
      slot.origin ??= originOfEntry(slot.view.entry, this.options.settings.sources);
      const ctx = loadContextFor(slot, slot.origin, {
        catalog: this.catalog,
        budget: this.budget,
        logger: this.logger,
        policy: this.options.policy,
        signal: this.abort.signal,
        metrics: this.options.metrics,
        progressLogIntervalMs: this.options.progressLogIntervalMs,
        quarantine: this.options.quarantine,
        diskReserveBytes: this.options.settings.diskReserveBytes,
        writesAllowed: this.options.writesAllowed,
        shared: this.options.shared,
      });
      const rangeSource = slot.origin.rangeSource;
      if (this.options.settings.serveWhileDownloading && rangeSource) {
        provisional = new ServeWhileDownloading(slot, rangeSource, this.catalog, this.logger);
        slot.provisional = provisional;
      }
      const record = await obtainIso(provisional ? provisional.wrap(ctx) : ctx);
      await this.publish(slot, record, Date.now() - started);
      provisional?.retire();
      await prepareMinimal(slot, {
        catalog: this.catalog,
        budget: this.budget,
        logger: this.logger,
        rebuild: this.options.rebuildMinimalIso,
        signal: this.abort.signal,
        metrics: this.options.metrics,
        quarantine: this.options.quarantine,
        writesAllowed: this.options.writesAllowed,
        changedWhileServed: (s, base, why) => this.changedWhileServed(s, base, why),
        shared: this.options.shared,
      });
      if (slot.distrusted !== undefined && slot.record === record && slot.view.integrity.mismatches === mismatches) {
        this.logger.info(
          { image: slot.view.key, sha256: record.iso.sha256 },
          'the cached files match their records: served again',
        );
      }
      slot.distrusted = undefined;
      if (slot.record === record) {
        integrityVerified(slot, record, new Date(), this.options.settings.integrity.rehashIntervalMs);
        this.catalog.notify();
      }
    } catch (err) {
      provisional?.abandon(describeError(err));
      if (!this.abort.signal.aborted) this.fail(slot, err);
    } finally {
      release?.();
    }
  }

  private async publish(slot: ImageSlot, record: CacheRecord, ms: number): Promise<void> {
    const { view } = slot;
    const { fence, opened } = fenceOf(record.iso, (base, why) =>
      this.changedWhileServed(slot, base, `the ISO ${path.basename(record.iso.path)}: ${why}`),
    );
    const base = opened(
      await BaseFile.open(record.iso.path, `sha256:${record.iso.sha256}`, await contentDate(record.iso.path), fence),
    );
    if (base.size !== record.iso.size) {
      base.close();
      throw new ImageLoadError('internal', `${view.label}: ${record.iso.path} changed after it was verified`, 'fast');
    }
    setRecord(slot, record);
    integrityVerified(slot, record, new Date(), this.options.settings.integrity.rehashIntervalMs);
    slot.diskBytes = (record.inPlace ? 0 : record.iso.size) + (record.minimal?.size ?? 0);
    slot.expectedBytes = slot.diskBytes;
    slot.slowFailures = 0;
    slot.readyAt = Date.now();
    view.lastServedAt = record.lastServedAt ? Date.parse(record.lastServedAt) : view.lastServedAt;
    const minimalState: MinimalState = record.iso.manifest.files.minisoData
      ? { state: 'pending' }
      : { state: 'absent' };
    this.catalog.setStatus(view, {
      state: 'ready',
      image: { entry: view.entry, base, manifest: record.iso.manifest, minimalState },
    });
    this.logger.info(
      {
        image: view.key,
        path: record.iso.path,
        size: record.iso.size,
        sha256: record.iso.sha256,
        ms,
        embedAreaBytes: record.iso.manifest.ignition.length,
      },
      'base image ready',
    );
  }

  /** A read of `base`, a served file of `slot`, found it changed (its fence): hold the image. */
  private changedWhileServed(slot: ImageSlot, base: BaseFile | undefined, reason: string): void {
    const status = slot.view.status;
    if (!base || status.state !== 'ready' || (status.image.base !== base && status.image.minimal?.base !== base))
      return;
    this.hold(slot, `${reason} (found by a read while serving)`);
  }

  /**
   * The background re-hash found `file` of `slot` unchanged at `at`: recorded (the time only), in
   * every source's record naming the same file (content-keyed files are shared).
   */
  private rehashed(slot: ImageSlot, file: VerifiedFile, at: Date): void {
    const record = slot.record;
    if (!record || (record.iso !== file && record.minimal !== file)) return;
    for (const s of [slot, ...this.options.shared.referencedBy(file.path, slot)]) {
      const r = s.record!;
      const same = r.iso.path === file.path ? r.iso : r.minimal;
      if (!same || same.sha256 !== file.sha256) continue;
      same.checkedAt = at.toISOString();
      integrityVerified(s, r, at, this.options.settings.integrity.rehashIntervalMs);
      void this.persist(s, r, 'recording a re-hash failed');
    }
    this.catalog.notify();
    this.logger.debug(
      { image: slot.view.key, path: file.path },
      'background re-hash: the cached file matches its record',
    );
  }

  /** Writes `record` outside a load job; close() waits for it, so it never lands after a restart. */
  private persist(slot: ImageSlot, record: CacheRecord, failure: string): Promise<void> | undefined {
    if (!slot.files) return undefined;
    const write = writeRecord(slot.files.record, record)
      .catch((err: unknown) => this.logger.warn({ image: slot.view.key, err: describeError(err) }, failure))
      .finally(() => this.recordWrites.delete(write));
    this.recordWrites.add(write);
    return write;
  }

  private fail(slot: ImageSlot, err: unknown): void {
    const { view } = slot;
    const retry = retryClassOf(err);
    const reason = describeError(err);
    this.options.metrics?.failed(view.key, retry);
    if (view.integrity.state === 'checking') view.integrity = { ...view.integrity, state: 'unverified' };
    if (retry === 'on-demand') {
      // evicted means nothing on disk: drop what an earlier run left (a .part is lost, on purpose)
      this.catalog.setStatus(view, { state: 'evicted', reason });
      this.budget.removeSlotFiles(slot);
      this.logger.warn({ image: view.key, reason }, 'base image left uncached');
      return;
    }
    let retryAt: number | undefined;
    if (retry === 'never') {
      slot.diskBytes = 0; // content failures remove what they wrote
    } else {
      slot.slowFailures++;
      const delay = slowDelayMs(this.options.policy, slot.slowFailures);
      retryAt = Date.now() + delay;
      slot.retryTimer = setTimeout(() => void this.start(slot), delay).unref();
    }
    this.catalog.setStatus(view, { state: 'failed', reason, retryAt });
    this.logger.error(
      {
        image: view.key,
        source: slot.origin?.description,
        reason,
        retry,
        retryAt: retryAt && new Date(retryAt).toISOString(),
      },
      'base image unusable',
    );
  }
}

function closeImage(image: LiveImage): void {
  image.base.close();
  image.minimal?.base.close();
}
