// The read side of the image store: the state of every configured image and the lookups the
// serving path, /health, the CLI and the assisted core make on it.
//
// Does: hold one CatalogSlot per configured source (its status, the sha256 and name of its
// verified file, when it was last served — an in-memory timestamp —, what the integrity checks
// found); entries naming the same source (`sourceKey`) share one slot, so one download and one
// file serve them all; resolve/find images by version (matching `version` or
// `openshift_version`) and architecture (with aliases), per entry; report health per entry,
// naming the entries that share its file; notify subscribers when the write side publishes a change.
// Does NOT: touch the disk or the network, start timers, or decide anything about loading,
// retrying or evicting. Requests it cannot answer from memory (an evicted image was asked for,
// an image was served) are handed to the write side through CatalogHooks.
import { BadRequestError, NotFoundError, UnavailableError } from '../../errors.js';
import type { LiveManifest } from '../../iso/manifest.js';
import { type OsImageEntry, sourceKey } from '../os-images-config.js';
import { knownArchitectureNames, normalizeArchitecture } from '../../cpu-architecture.js';
import type { CatalogImage, ImageCatalog } from './catalog-image.js';
import {
  type ImageStatus,
  type IntegrityStatus,
  type RegistryHealthSource,
  catalogState,
  newIntegrityStatus,
  toHealth,
} from './image-status.js';
import type { ImageStore, StoreHealth } from './image-store.js';
import type { LiveImage } from './live-image.js';

/** Seconds a client should wait before retrying an image that is still loading. */
const PENDING_RETRY_SECONDS = 10;
/** Retry-After for a failed image that has no retry scheduled. */
const FAILED_RETRY_SECONDS = 300;
/** Upper bound of any Retry-After the store gives: clients should not wait longer than an hour. */
const MAX_RETRY_SECONDS = 3600;

export interface CatalogSlot {
  /** The first of `entries`: what the write side fetches with (they all name one source). */
  readonly entry: OsImageEntry;
  /** Every configured entry naming this source, in configuration order. */
  readonly entries: readonly OsImageEntry[];
  /** `4.17 x86_64`, for messages (the first entry's). */
  readonly label: string;
  /** `4.17/x86_64`, for logs and metric labels (the first entry's). */
  readonly key: string;
  status: ImageStatus;
  /** Of the verified file the image was published from. */
  sha256: string | undefined;
  /** Name of that file in the cache (content-keyed), or the local path of a file used in place. */
  file: string | undefined;
  /** What a registry source resolved to, once pulled (or read from its record). */
  registry: RegistryHealthSource | undefined;
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
  /** Every entry with its slot, in configuration order. */
  private readonly members: ReadonlyArray<{ entry: OsImageEntry; slot: CatalogSlot }>;
  private readonly listeners = new Set<() => void>();

  constructor(
    entries: readonly OsImageEntry[],
    readonly configProblems: readonly string[],
    private readonly hooks: CatalogHooks,
  ) {
    const bySource = new Map<string, OsImageEntry[]>();
    for (const entry of entries) {
      const key = sourceKey(entry);
      const group = bySource.get(key);
      if (group) group.push(entry);
      else bySource.set(key, [entry]);
    }
    this.slots = [...bySource.values()].map((group) => ({
      entry: group[0]!,
      entries: group,
      label: labelOf(group[0]!),
      key: `${group[0]!.openshiftVersion}/${group[0]!.cpuArchitecture}`,
      status: { state: 'pending' },
      sha256: undefined,
      file: undefined,
      registry: undefined,
      lastServedAt: undefined,
      integrity: newIntegrityStatus(),
    }));
    this.members = entries.map((entry) => ({ entry, slot: this.slots.find((s) => s.entries.includes(entry))! }));
  }

  resolve(version: string | undefined, arch: string | undefined): LiveImage {
    if (!version) throw new BadRequestError("'version' parameter required");
    const { entry, slot } = this.memberFor(version, arch ?? 'x86_64');
    const status = slot.status;
    if (status.state === 'ready') {
      slot.lastServedAt = Date.now();
      this.hooks.served(slot);
      // entries sharing the file differ in what the serving path reads of the entry (rootfs_url, names)
      return status.image.entry === entry ? status.image : { ...status.image, entry };
    }
    const context = { version, arch };
    const label = labelOf(entry);
    switch (status.state) {
      case 'pending':
      case 'downloading':
      case 'extracting':
      case 'verifying': {
        const percent = status.state !== 'pending' ? status.progress?.snapshot().percent : undefined;
        const detail = percent !== undefined ? ` (${status.state} ${percent}%)` : ` (${status.state})`;
        throw new UnavailableError(`base image ${label} is not ready yet${detail}`, PENDING_RETRY_SECONDS, context);
      }
      case 'evicted':
        this.hooks.requested(slot);
        throw new UnavailableError(
          `base image ${label} is not cached: ${status.reason}; fetching it`,
          PENDING_RETRY_SECONDS,
          context,
        );
      case 'failed': {
        const wait =
          status.retryAt !== undefined ? Math.ceil((status.retryAt - Date.now()) / 1000) : FAILED_RETRY_SECONDS;
        throw new UnavailableError(
          `base image ${label} is unusable: ${status.reason}`,
          Math.min(MAX_RETRY_SECONDS, Math.max(PENDING_RETRY_SECONDS, wait)),
          context,
        );
      }
    }
  }

  images(): CatalogImage[] {
    return this.members.map(({ entry, slot }) => toCatalogImage(entry, slot));
  }

  find(version: string, arch: string): CatalogImage | undefined {
    try {
      const { entry, slot } = this.memberFor(version, arch);
      return toCatalogImage(entry, slot);
    } catch {
      return undefined;
    }
  }

  health(): StoreHealth {
    // which entries are served from each stored file: those of one source, and of sources whose
    // ISOs turned out to be the same bytes (content-keyed files)
    const byFile = new Map<string, string[]>();
    for (const { entry, slot } of this.members) {
      if (slot.file === undefined || slot.status.state !== 'ready' || slot.status.image.unverified) continue;
      byFile.set(slot.file, [...(byFile.get(slot.file) ?? []), labelOf(entry)]);
    }
    const images = this.members.map(({ entry, slot }) => {
      const sharing = slot.file === undefined ? undefined : byFile.get(slot.file);
      const label = labelOf(entry);
      const others = sharing?.includes(label) ? sharing.filter((l) => l !== label) : undefined;
      return toHealth({ ...slot, entry }, others);
    });
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

  private memberFor(version: string, arch: string): { entry: OsImageEntry; slot: CatalogSlot } {
    const cpu = normalizeArchitecture(arch);
    if (!cpu)
      throw new BadRequestError(`unknown architecture ${JSON.stringify(arch)}; known: ${knownArchitectureNames()}`, {
        arch,
      });
    const member = this.members.find(
      ({ entry }) => entry.cpuArchitecture === cpu && (entry.openshiftVersion === version || entry.version === version),
    );
    if (!member)
      throw new NotFoundError(
        `no base image for version ${JSON.stringify(version)} and architecture ${cpu}; configured: ${
          this.members.map(({ entry }) => labelOf(entry)).join(', ') || 'none'
        }`,
        { version, arch },
      );
    return member;
  }
}

function labelOf(entry: OsImageEntry): string {
  return `${entry.openshiftVersion} ${entry.cpuArchitecture}`;
}

function toCatalogImage(entry: OsImageEntry, { status }: CatalogSlot): CatalogImage {
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
