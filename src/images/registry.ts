// The image store: every configured base image, its readiness, and the bounded work that
// makes it ready. Each image is fetched (src/images/loader/obtain-iso.ts), verified, persisted and
// opened once into a LiveImage that every request then shares.
//
// Does: start live at once and load images in the background, at most IMAGE_DOWNLOAD_CONCURRENCY
// at a time; keep each image's state for /health, metrics and the CLI (a failed image never
// affects the others); retry failures on the schedule of src/images/loader/retry-policy.ts; keep the
// cache within IMAGE_CACHE_MAX_BYTES by evicting the least recently served re-fetchable images
// (fetched again when next requested); build the minimal variant once a full ISO with
// coreos/miniso.dat is ready; look images up by version (matching `version` or
// `openshift_version`) and architecture (with aliases).
//
// Evicting an image in use: it is no longer handed out at once, its files are unlinked, and its
// open BaseFiles are closed after a grace period (`retireGraceMs`, default 30 min) so streams
// already under way finish. Only images not served for `evictionMinIdleMs` (default 15 min) are
// eligible, so that grace covers any response still being sent.
// Does not: serve bytes, or know about InfraEnvs.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { BadRequestError, NotFoundError, UnavailableError, describeError } from '../errors.js';
import { BaseFile } from '../splice/base-file.js';
import { removeFiles, statIfExists } from './cache/atomic-file.js';
import { CacheFiles, cacheName, imagesDirOf } from './cache/cache-layout.js';
import { scanCache } from './cache/cache-scan.js';
import { MANIFEST_FORMAT_VERSION, type CacheRecord, type VerifiedFile, fileMismatch, writeRecord } from './cache/cache-record.js';
import { type CatalogImage, type ImageCatalog, normalizeArchitecture } from './catalog/catalog-image.js';
import { planEviction } from './cache/disk-budget.js';
import { type ImageMetrics, registerImageMetrics } from './image-metrics.js';
import { type LoadContext, obtainIso } from './loader/obtain-iso.js';
import { type ImageHealth, type ImageStatus, type WorkingState, catalogState, toHealth } from './catalog/image-status.js';
import type { LiveImage, MinimalState } from './catalog/live-image.js';
import { ImageLoadError } from './loader/load-error.js';
import { type RebuildMinimalIso, rebuildMinimalIsoFromMinisoDat } from './loader/minimal-iso.js';
import { buildMinimalVariant } from './loader/minimal-variant.js';
import type { LiveManifest } from '../iso/manifest.js';
import type { OsImageEntry } from './os-images-config.js';
import { TransferProgress, formatBytes, formatDuration } from './progress.js';
import { Semaphore } from './loader/semaphore.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryClassOf, slowDelayMs } from './loader/retry-policy.js';
import { type ImageOrigin, originOf } from './fetch/origin.js';
import { type ImageStoreSettings, defaultImageStoreSettings } from './store-settings.js';
import { parseAsLiveIso } from './fetch/verify-iso.js';

export type { LiveImage, MinimalState, MinimalVariant } from './catalog/live-image.js';
export type { ImageHealth } from './catalog/image-status.js';

export interface ImageRegistryOptions {
  /** Cache root: images live in `${dataDir}/images`. Without it only local ISOs work and nothing persists. */
  dataDir?: string;
  /** From imageStoreSettingsFromEnvironment(); defaults: concurrency 2, no budget, no extra headers/CA. */
  settings?: ImageStoreSettings;
  /** Registers the store's instruments (src/images/image-metrics.ts) when given. */
  metricsRegistry?: Registry;
  retry?: Partial<RetryPolicy>;
  evictionMinIdleMs?: number;
  retireGraceMs?: number;
  progressLogIntervalMs?: number;
  rebuildMinimalIso?: RebuildMinimalIso;
}

interface Slot {
  readonly entry: OsImageEntry;
  /** `4.17 x86_64`, for messages. */
  readonly label: string;
  /** `4.17/x86_64`, for logs and metric labels. */
  readonly key: string;
  readonly files: CacheFiles | undefined;
  origin: ImageOrigin | undefined;
  status: ImageStatus;
  record: CacheRecord | undefined;
  job: Promise<void> | undefined;
  /** Pending unlinks of an eviction; a new load waits for them. */
  removal: Promise<void> | undefined;
  retryTimer: NodeJS.Timeout | undefined;
  slowFailures: number;
  /** Bytes this image holds (or will hold) in the cache; 0 for images used in place. */
  diskBytes: number;
  /** The size the last load announced, to refuse an on-demand fetch without asking the remote. */
  expectedBytes: number | undefined;
  readyAt: number;
  lastServedAt: number | undefined;
  servedPersistedAt: number;
  lastProgressLog: number;
  lastNotify: number;
}

/** Seconds a client should wait before retrying an image that is still loading. */
const PENDING_RETRY_SECONDS = 10;
const FAILED_RETRY_SECONDS = 300;
const SERVED_PERSIST_INTERVAL_MS = 60_000;
const NOTIFY_INTERVAL_MS = 100;

export class ImageRegistry implements ImageCatalog {
  private readonly slots: Slot[];
  private readonly dir: string | undefined;
  private readonly settings: ImageStoreSettings;
  private readonly policy: RetryPolicy;
  private readonly semaphore: Semaphore;
  private readonly abort = new AbortController();
  private readonly metrics: ImageMetrics | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly retired = new Map<BaseFile, NodeJS.Timeout>();
  private orphans: Array<{ file: string; bytes: number }> = [];

  constructor(
    entries: readonly OsImageEntry[],
    readonly configProblems: readonly string[],
    private readonly logger: Logger,
    private readonly options: ImageRegistryOptions = {},
  ) {
    this.settings = options.settings ?? defaultImageStoreSettings();
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.semaphore = new Semaphore(this.settings.concurrency);
    this.dir = options.dataDir ? imagesDirOf(options.dataDir) : undefined;
    this.slots = entries.map((entry) => ({
      entry,
      label: `${entry.openshiftVersion} ${entry.cpuArchitecture}`,
      key: `${entry.openshiftVersion}/${entry.cpuArchitecture}`,
      files: this.dir ? new CacheFiles(this.dir, cacheName(entry)) : undefined,
      origin: undefined,
      status: { state: 'pending' },
      record: undefined,
      job: undefined,
      removal: undefined,
      retryTimer: undefined,
      slowFailures: 0,
      diskBytes: 0,
      expectedBytes: undefined,
      readyAt: 0,
      lastServedAt: undefined,
      servedPersistedAt: 0,
      lastProgressLog: 0,
      lastNotify: 0,
    }));
    if (options.metricsRegistry) {
      this.metrics = registerImageMetrics(options.metricsRegistry, () => this.slots.map((s) => s.status.state));
    }
  }

  /**
   * Loads every image; resolves once each has become ready or failed (or was left for later by
   * the disk budget). Never throws. Slow retries and minimal ISO builds may continue after it.
   */
  async loadAll(): Promise<void> {
    if (this.dir) await this.takeStock(this.dir);
    await Promise.all(this.slots.map((slot) => this.start(slot)));
  }

  /**
   * The ready image for `version` and `arch` (default x86_64), recorded as served. Throws
   * BadRequestError for a missing version or unknown architecture name, NotFoundError when
   * nothing is configured for them, UnavailableError (503 + Retry-After) while the image is
   * loading, evicted (its fetch starts now) or failed.
   */
  resolve(version: string | undefined, arch: string | undefined): LiveImage {
    if (!version) throw new BadRequestError("'version' parameter required");
    const slot = this.slotFor(version, arch ?? 'x86_64');
    const context = { version, arch };
    const status = slot.status;
    switch (status.state) {
      case 'ready':
        this.touch(slot);
        return status.image;
      case 'pending':
      case 'downloading':
      case 'extracting':
      case 'verifying': {
        const percent = status.state !== 'pending' ? status.progress?.snapshot().percent : undefined;
        const detail = percent !== undefined ? ` (${status.state} ${percent}%)` : ` (${status.state})`;
        throw new UnavailableError(`base image ${slot.label} is not ready yet${detail}`, PENDING_RETRY_SECONDS, context);
      }
      case 'evicted':
        void this.start(slot);
        throw new UnavailableError(`base image ${slot.label} is not cached: ${status.reason}; fetching it`, PENDING_RETRY_SECONDS, context);
      case 'failed': {
        const wait = status.retryAt !== undefined ? Math.ceil((status.retryAt - Date.now()) / 1000) : FAILED_RETRY_SECONDS;
        throw new UnavailableError(`base image ${slot.label} is unusable: ${status.reason}`, Math.min(3600, Math.max(PENDING_RETRY_SECONDS, wait)), context);
      }
    }
  }

  images(): CatalogImage[] {
    return this.slots.map(toCatalogImage);
  }

  find(version: string, arch: string): CatalogImage | undefined {
    try {
      return toCatalogImage(this.slotFor(version, arch));
    } catch {
      return undefined;
    }
  }

  health(): { ready: boolean; images: ImageHealth[]; problems: readonly string[] } {
    const images = this.slots.map((slot) =>
      toHealth({ entry: slot.entry, status: slot.status, sha256: slot.record?.iso.sha256, lastServedAt: slot.lastServedAt }),
    );
    return { ready: images.some((i) => i.state === 'ready'), images, problems: this.configProblems };
  }

  /** Calls `listener` after state changes and (at most every 100 ms per image) progress; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops all work (aborting downloads; .part files stay for a later resume) and closes every file. */
  async close(): Promise<void> {
    this.abort.abort(new ImageLoadError('unavailable', 'the image store is closing', 'fast'));
    for (const slot of this.slots) clearTimeout(slot.retryTimer);
    await Promise.all(this.slots.map((s) => s.job));
    for (const slot of this.slots) {
      if (slot.status.state === 'ready') closeImage(slot.status.image);
      if (slot.origin?.kind === 'remote') slot.origin.source.close();
    }
    for (const [base, timer] of this.retired) {
      clearTimeout(timer);
      base.close();
    }
    this.retired.clear();
  }

  // ---------------------------------------------------------------- loading

  private start(slot: Slot): Promise<void> {
    if (this.abort.signal.aborted || slot.status.state === 'ready') return slot.job ?? Promise.resolve();
    slot.job ??= this.run(slot).finally(() => {
      slot.job = undefined;
    });
    return slot.job;
  }

  private async run(slot: Slot): Promise<void> {
    clearTimeout(slot.retryTimer);
    let release: (() => void) | undefined;
    try {
      await slot.removal;
      if (slot.status.state === 'evicted' && slot.expectedBytes !== undefined) this.reserve(slot, slot.expectedBytes);
      this.setStatus(slot, { state: 'pending' });
      release = await this.semaphore.acquire(this.abort.signal);
      const started = Date.now();
      slot.origin ??= originOf(slot.entry.url, this.settings.sources);
      const record = await obtainIso(this.loadContext(slot, slot.origin));
      await this.publish(slot, record, Date.now() - started);
      await this.prepareMinimal(slot);
    } catch (err) {
      if (!this.abort.signal.aborted) this.fail(slot, err);
    } finally {
      release?.();
    }
  }

  private loadContext(slot: Slot, origin: ImageOrigin): LoadContext {
    let progress: TransferProgress | undefined;
    return {
      entry: slot.entry,
      label: slot.label,
      origin,
      files: slot.files,
      policy: this.policy,
      signal: this.abort.signal,
      now: () => new Date(),
      stage: (state: WorkingState, total?: number, already?: number) => {
        progress = total !== undefined || already !== undefined || state === 'downloading' ? new TransferProgress(total, already ?? 0) : undefined;
        this.setStatus(slot, { state, progress });
        if (state === 'downloading') {
          this.logger.info({ image: slot.key, source: sourceOf(origin), total, resumedAt: already || undefined }, 'downloading base image');
        }
      },
      advance: (bytes: number) => {
        if (!progress) return;
        progress.add(bytes);
        if (slot.status.state === 'downloading') this.metrics?.downloaded(slot.key, bytes);
        this.progressTick(slot, progress);
      },
      reserve: (bytes: number) => this.reserve(slot, bytes),
      notice: (message: string, context: Record<string, unknown> = {}) => this.logger.warn({ image: slot.key, ...context }, message),
    };
  }

  private async publish(slot: Slot, record: CacheRecord, ms: number): Promise<void> {
    const base = await BaseFile.open(record.iso.path, `sha256:${record.iso.sha256}`);
    if (base.size !== record.iso.size) {
      base.close();
      throw new ImageLoadError('internal', `${slot.label}: ${record.iso.path} changed after it was verified`, 'fast');
    }
    slot.record = record;
    slot.diskBytes = (record.inPlace ? 0 : record.iso.size) + (record.minimal?.size ?? 0);
    slot.expectedBytes = slot.diskBytes;
    slot.slowFailures = 0;
    slot.readyAt = Date.now();
    slot.lastServedAt = record.lastServedAt ? Date.parse(record.lastServedAt) : slot.lastServedAt;
    const minimalState: MinimalState = record.iso.manifest.files.minisoData ? { state: 'pending' } : { state: 'absent' };
    this.setStatus(slot, { state: 'ready', image: { entry: slot.entry, base, manifest: record.iso.manifest, minimalState } });
    this.logger.info(
      { image: slot.key, path: record.iso.path, size: record.iso.size, sha256: record.iso.sha256, ms, embedAreaBytes: record.iso.manifest.ignition.length },
      'base image ready',
    );
  }

  private fail(slot: Slot, err: unknown): void {
    const retry = retryClassOf(err);
    const reason = describeError(err);
    this.metrics?.failed(slot.key, retry);
    if (retry === 'on-demand') {
      // evicted means nothing on disk: drop what an earlier run left (a .part is lost, on purpose)
      this.setStatus(slot, { state: 'evicted', reason });
      this.removeSlotFiles(slot);
      this.logger.warn({ image: slot.key, reason }, 'base image left uncached');
      return;
    }
    let retryAt: number | undefined;
    if (retry === 'never') {
      slot.diskBytes = 0; // content failures remove what they wrote
    } else {
      slot.slowFailures++;
      const delay = slowDelayMs(this.policy, slot.slowFailures);
      retryAt = Date.now() + delay;
      slot.retryTimer = setTimeout(() => void this.start(slot), delay).unref();
    }
    this.setStatus(slot, { state: 'failed', reason, retryAt });
    this.logger.error(
      { image: slot.key, source: slot.origin ? sourceOf(slot.origin) : undefined, reason, retry, retryAt: retryAt && new Date(retryAt).toISOString() },
      'base image unusable',
    );
  }

  // ---------------------------------------------------------------- minimal variant

  /** Opens (or builds once) the minimal ISO of a ready image; failures stay the variant's own. */
  private async prepareMinimal(slot: Slot): Promise<void> {
    const record = slot.record;
    if (slot.status.state !== 'ready' || !record?.iso.manifest.files.minisoData) return;
    try {
      let minimal = record.minimal && (await this.reusableMinimal(slot, record.minimal));
      if (!minimal) {
        if (!slot.files) throw new ImageLoadError('internal', 'minimal ISOs need a cache directory (DATA_DIR)', 'never');
        this.setMinimal(slot, { state: 'building' });
        const started = Date.now();
        minimal = await buildMinimalVariant(record.iso, slot.files, this.options.rebuildMinimalIso ?? rebuildMinimalIsoFromMinisoDat, slot.label, this.abort.signal);
        try {
          this.reserve(slot, (record.inPlace ? 0 : record.iso.size) + minimal.size);
        } catch (err) {
          await removeFiles(slot.files.minimal);
          throw err;
        }
        this.logger.info({ image: slot.key, path: minimal.path, size: minimal.size, ms: Date.now() - started }, 'minimal ISO rebuilt');
      }
      if (record.minimal !== minimal) {
        record.minimal = minimal;
        if (slot.files) await writeRecord(slot.files.record, record);
      }
      const base = await BaseFile.open(minimal.path, `sha256:${minimal.sha256}`);
      if (slot.status.state !== 'ready' || slot.record !== record) {
        base.close();
        return;
      }
      slot.status = { state: 'ready', image: { ...slot.status.image, minimal: { base, manifest: minimal.manifest }, minimalState: { state: 'ready' } } };
      this.notify();
    } catch (err) {
      if (this.abort.signal.aborted) return;
      const reason = describeError(err);
      if (record.minimal) {
        delete record.minimal;
        slot.diskBytes = record.inPlace ? 0 : record.iso.size;
      }
      this.setMinimal(slot, { state: 'failed', reason });
      this.logger.warn({ image: slot.key, reason }, 'minimal ISO unavailable; the full ISO is still served');
    }
  }

  /** The recorded minimal ISO when its file is unchanged (re-parsed if the manifest format moved on). */
  private async reusableMinimal(slot: Slot, minimal: VerifiedFile): Promise<VerifiedFile | undefined> {
    const st = await statIfExists(minimal.path);
    if (!st || fileMismatch(minimal, st) !== undefined) return undefined;
    if (minimal.manifest.formatVersion === MANIFEST_FORMAT_VERSION) return minimal;
    return { ...minimal, manifest: await parseAsLiveIso(minimal.path, `${slot.label} minimal ISO`) };
  }

  private setMinimal(slot: Slot, minimalState: MinimalState): void {
    if (slot.status.state !== 'ready') return;
    slot.status = { state: 'ready', image: { ...slot.status.image, minimalState } };
    this.notify();
  }

  // ---------------------------------------------------------------- disk budget

  /**
   * Makes `slot` hold `bytes` of the cache in all, evicting least recently served images
   * (and unreferenced files) when the budget requires. Throws ImageLoadError `on-demand` when
   * images served recently leave no room, `never` when the image alone exceeds the budget.
   */
  private reserve(slot: Slot, bytes: number): void {
    slot.expectedBytes = bytes;
    const max = this.settings.cacheMaxBytes;
    if (max === undefined || bytes <= slot.diskBytes) {
      slot.diskBytes = Math.max(slot.diskBytes, bytes);
      return;
    }
    if (bytes > max) {
      throw new ImageLoadError('unavailable', `${slot.label} needs ${formatBytes(bytes)}, more than IMAGE_CACHE_MAX_BYTES (${formatBytes(max)})`, 'never');
    }
    const minIdleMs = this.options.evictionMinIdleMs ?? 15 * 60_000;
    const now = Date.now();
    const candidates = [
      ...this.orphans.map((o) => ({ id: `file:${o.file}`, bytes: o.bytes, lastUsedAt: 0 })),
      ...this.slots
        .filter((s) => s !== slot && s.status.state === 'ready' && s.record && !s.record.inPlace && !s.job)
        .map((s) => ({ id: `image:${s.key}`, bytes: s.diskBytes, lastUsedAt: s.lastServedAt ?? s.readyAt })),
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
      else this.evict(this.slots.find((s) => `image:${s.key}` === victim)!);
    }
    slot.diskBytes = bytes;
  }

  private usedBytes(): number {
    return this.slots.reduce((sum, s) => sum + s.diskBytes, 0) + this.orphans.reduce((sum, o) => sum + o.bytes, 0);
  }

  private evict(slot: Slot): void {
    if (slot.status.state !== 'ready' || !slot.files) return;
    const { image } = slot.status;
    const freed = slot.diskBytes;
    this.setStatus(slot, { state: 'evicted', reason: 'evicted to stay within IMAGE_CACHE_MAX_BYTES' });
    for (const base of [image.base, image.minimal?.base]) if (base) this.retire(base);
    this.removeSlotFiles(slot);
    this.logger.info({ image: slot.key, freed, lastServedAt: slot.lastServedAt && new Date(slot.lastServedAt).toISOString() }, 'base image evicted');
  }

  /** Forgets and unlinks everything `slot` has in the cache; a new load of it waits for the unlinks. */
  private removeSlotFiles(slot: Slot): void {
    slot.record = undefined;
    slot.diskBytes = 0;
    if (!slot.files) return;
    slot.removal = removeFiles(...slot.files.all()).catch((err: unknown) =>
      this.logger.error({ image: slot.key, err: describeError(err) }, 'removing cached files failed'),
    );
  }

  /** Closes `base` once streams that started before its eviction had time to finish. */
  private retire(base: BaseFile): void {
    const timer = setTimeout(() => {
      this.retired.delete(base);
      base.close();
    }, this.options.retireGraceMs ?? 30 * 60_000).unref();
    this.retired.set(base, timer);
  }

  private removeOrphan(file: string): void {
    this.orphans = this.orphans.filter((o) => o.file !== file);
    void removeFiles(path.join(this.dir!, file));
    this.logger.info({ file }, 'unreferenced cache file removed for the disk budget');
  }

  /** Attributes the files already in the cache: to their image, or as unreferenced (evicted first). */
  private async takeStock(dir: string): Promise<void> {
    try {
      const { ownedBytes, unreferenced } = await scanCache(dir, this.slots.map((s) => s.files), { tidy: true });
      this.slots.forEach((slot, i) => (slot.diskBytes = ownedBytes[i] ?? 0));
      this.orphans = unreferenced;
      if (unreferenced.length) {
        const bytes = unreferenced.reduce((sum, o) => sum + o.bytes, 0);
        this.logger.info({ dir, files: unreferenced.length, bytes }, 'cache holds files of images no longer configured (removed first when the disk budget needs room)');
      }
    } catch (err) {
      this.logger.error({ dir, err: describeError(err) }, 'image cache directory unusable');
    }
  }

  // ---------------------------------------------------------------- serving bookkeeping

  /** Records that `slot` was served (cheap; persisted at most once a minute). */
  private touch(slot: Slot): void {
    const now = Date.now();
    slot.lastServedAt = now;
    const record = slot.record;
    if (!record || !slot.files || now - slot.servedPersistedAt < SERVED_PERSIST_INTERVAL_MS) return;
    slot.servedPersistedAt = now;
    record.lastServedAt = new Date(now).toISOString();
    writeRecord(slot.files.record, record).catch((err: unknown) =>
      this.logger.warn({ image: slot.key, err: describeError(err) }, 'recording when an image was served failed'),
    );
  }

  private setStatus(slot: Slot, status: ImageStatus): void {
    slot.status = status;
    this.notify();
  }

  private progressTick(slot: Slot, progress: TransferProgress): void {
    const now = Date.now();
    if (now - slot.lastNotify >= NOTIFY_INTERVAL_MS) {
      slot.lastNotify = now;
      this.notify();
    }
    if (now - slot.lastProgressLog >= (this.options.progressLogIntervalMs ?? 10_000)) {
      slot.lastProgressLog = now;
      this.logger.info({ image: slot.key, state: slot.status.state, ...progress.snapshot() }, 'base image progress');
    }
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private slotFor(version: string, arch: string): Slot {
    const cpu = normalizeArchitecture(arch);
    if (!cpu) throw new BadRequestError(`unknown architecture ${JSON.stringify(arch)}`, { arch });
    const slot = this.slots.find(
      (s) => s.entry.cpuArchitecture === cpu && (s.entry.openshiftVersion === version || s.entry.version === version),
    );
    if (!slot) throw new NotFoundError(`no base image for version ${JSON.stringify(version)} and architecture ${cpu}`, { version, arch });
    return slot;
  }
}

function toCatalogImage({ entry, status }: Slot): CatalogImage {
  return {
    openshiftVersion: entry.openshiftVersion,
    version: entry.version,
    cpuArchitecture: entry.cpuArchitecture,
    embedAreaBytes: status.state === 'ready' ? status.image.manifest.ignition.length : undefined,
    kernelArgumentsBytes: status.state === 'ready' ? kernelArgumentsRoom(status.image.manifest) : undefined,
    minimalIsoSupported: status.state === 'ready' && status.image.minimal !== undefined,
    state: catalogState(status.state),
  };
}

function closeImage(image: LiveImage): void {
  image.base.close();
  image.minimal?.base.close();
}

function sourceOf(origin: ImageOrigin): string {
  return origin.kind === 'local' ? origin.path : origin.source.description;
}

/** Room for appended kernel arguments: kargs must stay shorter than the area (coreos-installer). */
function kernelArgumentsRoom(manifest: LiveManifest): number {
  const kargs = manifest.kargs;
  return kargs ? Math.max(0, kargs.size - 1 - Buffer.byteLength(kargs.default)) : 0;
}
