// The image store, wired: every configured base image, its readiness, and the bounded work that
// makes it ready. Each image is fetched from its origin (src/images/origins/) by the pipeline of
// src/images/loader/obtain-iso.ts, verified, persisted and opened once into a LiveImage that every
// request then shares.
//
// Two sides:
//   read   src/images/catalog/store-catalog.ts — state per image, resolve/find/images/health/
//          subscribe; no I/O, no timers. The serving path, /health and the CLI take it as the
//          three-method ImageStore (src/images/catalog/image-store.ts).
//   write  src/images/loader/image-loader.ts (jobs, semaphore, retries, the minimal variant) and
//          src/images/cache/cache-budget.ts (reserve/evict/retire within IMAGE_CACHE_MAX_BYTES),
//          which publish into the catalog.
//
// Does: build both sides for a configuration, start live at once and load in the background
// (`loadAll`; writes into the cache may wait for `writesAfter`), close everything (`close`), and
// expose the catalog's read methods.
// Does NOT: contain any of that logic itself, serve bytes, or know about InfraEnvs.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CacheBudget, DEFAULT_EVICTION_MIN_IDLE_MS, DEFAULT_RETIRE_GRACE_MS } from './cache/cache-budget.js';
import { CacheFiles, LegacyFiles, cacheName, imagesDirOf, legacyNames } from './cache/cache-layout.js';
import { Quarantine } from './cache/quarantine.js';
import type { CatalogImage, ImageCatalog } from './catalog/catalog-image.js';
import type { ImageStore, StoreHealth } from './catalog/image-store.js';
import type { LiveImage } from './catalog/live-image.js';
import { StoreCatalog } from './catalog/store-catalog.js';
import { registerImageMetrics } from './image-metrics.js';
import { newSlot } from './loader/image-slot.js';
import { ImageLoader } from './loader/image-loader.js';
import { type RebuildMinimalIso, rebuildMinimalIsoFromMinisoDat } from './loader/rebuild-minimal-iso.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './load-failure/retry-policy.js';
import { SharedContent } from './loader/shared-content.js';
import type { OsImageEntry } from './os-images-config.js';
import { type ImageStoreSettings, defaultImageStoreSettings } from './store-settings.js';

export type { ImageStore, StoreHealth } from './catalog/image-store.js';
export type { LiveImage, MinimalState, MinimalVariant } from './catalog/live-image.js';
export type { ImageHealth } from './catalog/image-status.js';

/** How often a download's progress is logged. */
const PROGRESS_LOG_INTERVAL_MS = 10_000;

export interface ManagedImageStoreOptions {
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
  /**
   * Downloads, extractions and minimal ISO builds wait for it (settled either way): the service
   * passes the embedded PostgreSQL's start, which needs DATA_DIR's disk first. Images already
   * cached are compared and served meanwhile.
   */
  writesAfter?: Promise<unknown>;
}

export class ManagedImageStore implements ImageStore, ImageCatalog {
  /** The read side, for consumers that only look images up. */
  readonly catalog: StoreCatalog;
  private readonly loader: ImageLoader;
  private readonly budget: CacheBudget;

  constructor(
    entries: readonly OsImageEntry[],
    readonly configProblems: readonly string[],
    logger: Logger,
    options: ManagedImageStoreOptions = {},
  ) {
    const settings = options.settings ?? defaultImageStoreSettings();
    const proxy = settings.sources.http.proxy;
    if (proxy)
      logger.info({ proxy: proxy.describe() }, 'http(s) image sources go through an egress proxy (NO_PROXY aside)');
    const dir = options.dataDir ? imagesDirOf(options.dataDir) : undefined;
    this.catalog = new StoreCatalog(entries, configProblems, {
      requested: (view) => this.loader.requested(view),
      served: (view) => this.loader.served(view),
    });
    // one slot per configured source (entries naming one source share it), one file per distinct ISO
    const slots = this.catalog.slots.map((view) =>
      dir
        ? newSlot(
            view,
            new CacheFiles(dir, cacheName(view.entry)),
            legacyNames(view.entries).map((name) => new LegacyFiles(dir, name)),
          )
        : newSlot(view, undefined),
    );
    const shared = new SharedContent(slots);
    if (settings.serveWhileDownloading && entries.some((e) => e.releaseImage !== undefined || /^oci:/i.test(e.url!)))
      logger.info(
        'IMAGE_SERVE_WHILE_DOWNLOADING does not apply to registry sources: they are served once their digests are verified',
      );
    this.budget = new CacheBudget(slots, this.catalog, logger, {
      dir,
      maxBytes: settings.cacheMaxBytes,
      minIdleMs: options.evictionMinIdleMs ?? DEFAULT_EVICTION_MIN_IDLE_MS,
      retireGraceMs: options.retireGraceMs ?? DEFAULT_RETIRE_GRACE_MS,
    });
    const slotsView = this.catalog.slots;
    const metrics = options.metricsRegistry
      ? registerImageMetrics(options.metricsRegistry, () => slotsView.map((s) => s.status.state))
      : undefined;
    this.loader = new ImageLoader(slots, this.catalog, this.budget, logger, {
      settings,
      policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      metrics,
      progressLogIntervalMs: options.progressLogIntervalMs ?? PROGRESS_LOG_INTERVAL_MS,
      rebuildMinimalIso: options.rebuildMinimalIso ?? rebuildMinimalIsoFromMinisoDat,
      quarantine: dir ? new Quarantine(dir, settings.integrity.quarantineKeep) : undefined,
      writesAllowed: (options.writesAfter ?? Promise.resolve()).then(
        () => undefined,
        () => undefined,
      ),
      shared,
    });
  }

  /**
   * Loads every image; resolves once each has become ready or failed (or was left for later by
   * the disk budget). Never throws. Slow retries and minimal ISO builds may continue after it.
   */
  loadAll(): Promise<void> {
    return this.loader.loadAll();
  }

  /** Stops all work (aborting downloads; .part files stay for a later resume) and closes every file. */
  async close(): Promise<void> {
    await this.loader.close();
    this.budget.close();
  }

  resolve(version: string | undefined, arch: string | undefined): LiveImage {
    return this.catalog.resolve(version, arch);
  }

  images(): CatalogImage[] {
    return this.catalog.images();
  }

  find(version: string, arch: string): CatalogImage | undefined {
    return this.catalog.find(version, arch);
  }

  health(): StoreHealth {
    return this.catalog.health();
  }

  subscribe(listener: () => void): () => void {
    return this.catalog.subscribe(listener);
  }
}
