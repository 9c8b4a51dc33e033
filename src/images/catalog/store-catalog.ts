// The read side of the image store: the state of every configured image and the lookups the
// serving path, /health, the CLI and the assisted core make on it.
//
// Does: hold one CatalogSlot per configured image (its status, the sha256 of its verified
// file, when it was last served — an in-memory timestamp —, what the integrity checks found); resolve/find images by version
// (matching `version` or `openshift_version`) and architecture (with aliases); report health;
// notify subscribers when the write side publishes a change.
// Does NOT: touch the disk or the network, start timers, or decide anything about loading,
// retrying or evicting. Requests it cannot answer from memory (an evicted image was asked for,
// an image was served) are handed to the write side through CatalogHooks.
import { BadRequestError, NotFoundError, UnavailableError } from '../../errors.js';
import type { LiveManifest } from '../../iso/manifest.js';
import type { OsImageEntry } from '../os-images-config.js';
import { normalizeArchitecture } from '../architecture.js';
import type { CatalogImage, ImageCatalog } from './catalog-image.js';
import { type ImageStatus, type IntegrityStatus, catalogState, newIntegrityStatus, toHealth } from './image-status.js';
import type { ImageStore, StoreHealth } from './image-store.js';
import type { LiveImage } from './live-image.js';

/** Seconds a client should wait before retrying an image that is still loading. */
const PENDING_RETRY_SECONDS = 10;
/** Retry-After for a failed image that has no retry scheduled. */
const FAILED_RETRY_SECONDS = 300;
/** Upper bound of any Retry-After the store gives: clients should not wait longer than an hour. */
const MAX_RETRY_SECONDS = 3600;

export interface CatalogSlot {
  readonly entry: OsImageEntry;
  /** `4.17 x86_64`, for messages. */
  readonly label: string;
  /** `4.17/x86_64`, for logs and metric labels. */
  readonly key: string;
  status: ImageStatus;
  /** Of the verified file the image was published from. */
  sha256: string | undefined;
  lastServedAt: number | undefined;
  /** Published by the write side's integrity checks (src/images/loader/integrity-watch.ts). */
  integrity: IntegrityStatus;
}

/** What the catalog asks of the write side; both are called synchronously and must not throw. */
export interface CatalogHooks {
  /** An evicted image was requested: fetch it again. */
  requested(slot: CatalogSlot): void;
  /** A ready image was just served (slot.lastServedAt is set). */
  served(slot: CatalogSlot): void;
}

export class StoreCatalog implements ImageStore, ImageCatalog {
  readonly slots: readonly CatalogSlot[];
  private readonly listeners = new Set<() => void>();

  constructor(
    entries: readonly OsImageEntry[],
    readonly configProblems: readonly string[],
    private readonly hooks: CatalogHooks,
  ) {
    this.slots = entries.map((entry) => ({
      entry,
      label: `${entry.openshiftVersion} ${entry.cpuArchitecture}`,
      key: `${entry.openshiftVersion}/${entry.cpuArchitecture}`,
      status: { state: 'pending' },
      sha256: undefined,
      lastServedAt: undefined,
      integrity: newIntegrityStatus(),
    }));
  }

  resolve(version: string | undefined, arch: string | undefined): LiveImage {
    if (!version) throw new BadRequestError("'version' parameter required");
    const slot = this.slotFor(version, arch ?? 'x86_64');
    const context = { version, arch };
    const status = slot.status;
    switch (status.state) {
      case 'ready':
        slot.lastServedAt = Date.now();
        this.hooks.served(slot);
        return status.image;
      case 'pending':
      case 'downloading':
      case 'extracting':
      case 'verifying': {
        const percent = status.state !== 'pending' ? status.progress?.snapshot().percent : undefined;
        const detail = percent !== undefined ? ` (${status.state} ${percent}%)` : ` (${status.state})`;
        throw new UnavailableError(
          `base image ${slot.label} is not ready yet${detail}`,
          PENDING_RETRY_SECONDS,
          context,
        );
      }
      case 'evicted':
        this.hooks.requested(slot);
        throw new UnavailableError(
          `base image ${slot.label} is not cached: ${status.reason}; fetching it`,
          PENDING_RETRY_SECONDS,
          context,
        );
      case 'failed': {
        const wait =
          status.retryAt !== undefined ? Math.ceil((status.retryAt - Date.now()) / 1000) : FAILED_RETRY_SECONDS;
        throw new UnavailableError(
          `base image ${slot.label} is unusable: ${status.reason}`,
          Math.min(MAX_RETRY_SECONDS, Math.max(PENDING_RETRY_SECONDS, wait)),
          context,
        );
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

  health(): StoreHealth {
    const images = this.slots.map((slot) => toHealth(slot));
    return { ready: images.some((i) => i.state === 'ready'), images, problems: this.configProblems };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ------------------------------------------------------------ publishing (the write side)

  setStatus(slot: CatalogSlot, status: ImageStatus): void {
    slot.status = status;
    this.notify();
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  private slotFor(version: string, arch: string): CatalogSlot {
    const cpu = normalizeArchitecture(arch);
    if (!cpu) throw new BadRequestError(`unknown architecture ${JSON.stringify(arch)}`, { arch });
    const slot = this.slots.find(
      (s) => s.entry.cpuArchitecture === cpu && (s.entry.openshiftVersion === version || s.entry.version === version),
    );
    if (!slot)
      throw new NotFoundError(`no base image for version ${JSON.stringify(version)} and architecture ${cpu}`, {
        version,
        arch,
      });
    return slot;
  }
}

function toCatalogImage({ entry, status }: CatalogSlot): CatalogImage {
  return {
    openshiftVersion: entry.openshiftVersion,
    version: entry.version,
    cpuArchitecture: entry.cpuArchitecture,
    embedAreaBytes: status.state === 'ready' ? status.image.manifest.ignition.length : undefined,
    kernelArgumentsBytes: status.state === 'ready' ? kernelArgumentsRoom(status.image.manifest) : undefined,
    minimalIsoSupported: status.state === 'ready' && status.image.minimal !== undefined,
    state: catalogState(status.state),
    ...(entry.rootfsUrl !== undefined ? { rootfsUrl: entry.rootfsUrl } : {}),
  };
}

/** Room for appended kernel arguments: kargs must stay shorter than the area (coreos-installer). */
function kernelArgumentsRoom(manifest: LiveManifest): number {
  const kargs = manifest.kargs;
  return kargs ? Math.max(0, kargs.size - 1 - Buffer.byteLength(kargs.default)) : 0;
}
