// Turns an image-side request (which InfraEnv, which image, which artifact) into a
// SplicedFile ready for the HTTP range layer.
//
// Each artifact is built once per (content of the customization, open base file, kind)
// and shared by every Range request that follows, so nothing is recompressed per request
// whatever the Ignition source caches. Caches hang off the BaseFile object (WeakMap): an
// image evicted and fetched again gets a new BaseFile, so no artifact ever outlives the
// file it reads, and nothing keeps an old file reachable. No HTTP headers or routes here.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { BadRequestError, UnavailableError } from '../errors.js';
import type {
  Credential,
  DiscoveryCustomization,
  DiscoveryImageType,
  IgnitionSource,
} from '../image-ports/ignition-source.js';
import type { ImageStore } from '../images/catalog/image-store.js';
import type { LiveImage, MinimalVariant } from '../images/catalog/live-image.js';
import type { EmbedCompression } from '../initrd/embed-archive.js';
import type { Extent, LiveManifest } from '../iso/manifest.js';
import type { BaseFile } from '../splice/base-file.js';
import { SplicedFile } from '../splice/spliced-file.js';
import { URL_SHAPE, fillPath } from '../url-grammar.js';
import { buildDiscoveryIso } from './discovery-iso.js';
import { MinimalPlans, buildMinimalIso } from './minimal-discovery-iso.js';
import { buildPxeInitrd, initrdAddrsize } from './pxe-initrd.js';

export interface ArtifactRequest {
  infraEnvId: string;
  version: string | undefined;
  arch: string | undefined;
  credential: Credential;
}

export interface ServedArtifact {
  file: SplicedFile;
  lastModified: Date;
  /**
   * A discovery ISO's boot files as it places them: the kernel, the initramfs and the Ignition
   * embed area (what a boot loader reads to start the live system; see src/bmc/jobs/read-coverage.ts).
   */
  bootExtents?: readonly Extent[];
}

/** Boot extents already worked out, per manifest (a manifest does not change once read). */
const bootExtentsByManifest = new WeakMap<LiveManifest, readonly Extent[]>();

/** The kernel, the initramfs and the Ignition embed area of a live ISO's manifest. */
export function bootExtentsOf(manifest: LiveManifest): readonly Extent[] {
  let known = bootExtentsByManifest.get(manifest);
  if (known === undefined) {
    const { kernel, initrd } = manifest.files;
    known = Object.freeze(
      [kernel, initrd, { offset: manifest.ignition.offset, length: manifest.ignition.length }].filter(
        (e): e is Extent => e !== undefined && e.length > 0,
      ),
    );
    bootExtentsByManifest.set(manifest, known);
  }
  return known;
}

export type BootArtifactKind = 'kernel' | 'rootfs' | 'initrd' | 'ins-file';

type BuiltKind = 'full-iso' | 'minimal-iso' | 'pxe-initrd';

/** Built per-InfraEnv artifacts of one base file, by kind and content fingerprint. */
type BuiltCache = LRUCache<string, Promise<SplicedFile>>;

const MINIMAL_RETRY_SECONDS = 30;

export class ArtifactService {
  private readonly built = new WeakMap<BaseFile, BuiltCache>();
  private readonly windows = new WeakMap<BaseFile, Map<BootArtifactKind, SplicedFile>>();
  private readonly minimalPlans = new MinimalPlans();

  constructor(
    private readonly images: ImageStore,
    private readonly ignition: IgnitionSource,
    private readonly compression: EmbedCompression,
    /** IMAGE_SERVICE_BASE_URL: minimal ISOs fetch their rootfs from here. */
    private readonly imageServiceBaseUrl: string,
  ) {}

  async discoveryIso(request: ArtifactRequest, imageType: DiscoveryImageType): Promise<ServedArtifact> {
    const image = this.images.resolve(request.version, request.arch);
    if (imageType === 'full-iso') {
      const { file, lastModified } = await this.customized(image.base, request, 'full-iso', (c) =>
        buildDiscoveryIso(image, c, this.compression),
      );
      return { file, lastModified, bootExtents: bootExtentsOf(image.manifest) };
    }
    const minimal = minimalVariant(image);
    const plan = await this.minimalPlans.get(minimal, this.rootfsUrl(image));
    const { file, lastModified } = await this.customized(minimal.base, request, 'minimal-iso', (c) =>
      buildMinimalIso(minimal, plan, c, this.compression),
    );
    return { file, lastModified, bootExtents: bootExtentsOf(minimal.manifest) };
  }

  async pxeInitrd(request: ArtifactRequest): Promise<ServedArtifact> {
    const image = this.images.resolve(request.version, request.arch);
    return this.customized(image.base, request, 'pxe-initrd', (c) => buildPxeInitrd(image, c, this.compression));
  }

  /** s390x `initrd.addrsize` matching the PXE initrd this InfraEnv gets. */
  async s390xInitrdAddrsize(request: ArtifactRequest): Promise<{ bytes: Buffer; lastModified: Date; etag: string }> {
    const image = this.images.resolve(request.version, 's390x');
    const extent = image.manifest.files.initrdAddrsize;
    if (!extent)
      throw new BadRequestError(`base image ${image.entry.openshiftVersion} s390x has no images/initrd.addrsize`);
    const initrd = await this.pxeInitrd({ ...request, arch: 's390x' });
    const base = await image.base.readExactly(extent.offset, Math.min(extent.length, 16));
    return { bytes: initrdAddrsize(base, initrd.file.size), lastModified: initrd.lastModified, etag: initrd.file.etag };
  }

  bootArtifact(kind: BootArtifactKind, version: string | undefined, arch: string | undefined): ServedArtifact {
    const image = this.images.resolve(version, arch);
    let perBase = this.windows.get(image.base);
    if (!perBase) {
      perBase = new Map();
      this.windows.set(image.base, perBase);
    }
    let file = perBase.get(kind);
    if (!file) {
      file = new SplicedFile(image.base, { window: bootArtifactExtent(image, kind) });
      perBase.set(kind, file);
    }
    return { file, lastModified: image.base.mtime };
  }

  /**
   * Where a minimal ISO of `image` boots its rootfs from: the entry's OS_IMAGES `rootfs_url` when
   * set (validated by os-images-config.ts), else this service's boot-artifacts route.
   */
  rootfsUrl(image: LiveImage): string {
    if (image.entry.rootfsUrl !== undefined) return image.entry.rootfsUrl;
    const query = new URLSearchParams({ arch: image.entry.cpuArchitecture, version: image.entry.openshiftVersion });
    const rootfs = fillPath(URL_SHAPE.bootArtifact, { kind: 'rootfs' });
    return `${this.imageServiceBaseUrl}${rootfs}?${query.toString()}`;
  }

  private async customized(
    base: BaseFile,
    request: ArtifactRequest,
    kind: BuiltKind,
    build: (c: DiscoveryCustomization) => Promise<SplicedFile>,
  ): Promise<ServedArtifact> {
    const customization = await this.ignition.discoveryCustomization({
      infraEnvId: request.infraEnvId,
      imageType: kind === 'minimal-iso' ? 'minimal-iso' : 'full-iso',
      credential: request.credential,
    });
    let cache = this.built.get(base);
    if (!cache) {
      cache = new LRUCache({ max: 1000 });
      this.built.set(base, cache);
    }
    const key = `${kind}|${fingerprint(customization)}`;
    let pending = cache.get(key);
    if (!pending) {
      const building = build(customization);
      cache.set(key, building);
      building.catch(() => cache.delete(key));
      pending = building;
    }
    const file = await pending;
    const lastModified =
      customization.lastModified && customization.lastModified > base.mtime ? customization.lastModified : base.mtime;
    return { file, lastModified };
  }
}

/** The minimal variant of `image`, or why there is none: 400 when it can never exist, 503 while it is being made. */
function minimalVariant(image: LiveImage): MinimalVariant {
  const name = `${image.entry.openshiftVersion} ${image.entry.cpuArchitecture}`;
  const state = image.minimalState;
  if (image.minimal && state.state === 'ready') return image.minimal;
  switch (state.state) {
    case 'absent':
      throw new BadRequestError(
        `minimal ISOs need a base image that carries coreos/miniso.dat, and ${name} does not; request type=full-iso`,
      );
    case 'failed':
      throw new UnavailableError(`the minimal ISO of ${name} could not be built: ${state.reason}`, 300);
    default:
      throw new UnavailableError(`the minimal ISO of ${name} is still being built`, MINIMAL_RETRY_SECONDS);
  }
}

/**
 * Fingerprints already computed, per customization object: the Ignition cache hands the same
 * object to every request of an InfraEnv until its TTL runs out, so a range storm hashes the
 * Ignition once instead of once per request. Nothing mutates a customization after its source
 * returned it (both sources build a fresh object per lookup), so a fingerprint cannot go stale.
 */
const fingerprints = new WeakMap<DiscoveryCustomization, string>();

function fingerprint(c: DiscoveryCustomization): string {
  let known = fingerprints.get(c);
  if (known === undefined) {
    known = computeFingerprint(c);
    fingerprints.set(c, known);
  }
  return known;
}

function computeFingerprint(c: DiscoveryCustomization): string {
  const hash = createHash('sha256');
  hash.update(`${c.ignition.length}:`).update(c.ignition);
  hash.update(`|${JSON.stringify(c.kernelArguments)}|`);
  if (c.extraInitrd) hash.update(`${c.extraInitrd.length}:`).update(c.extraInitrd);
  return hash.digest('base64url');
}

function bootArtifactExtent(image: LiveImage, kind: BootArtifactKind): Extent {
  const files = image.manifest.files;
  const extent = { kernel: files.kernel, rootfs: files.rootfs, initrd: files.initrd, 'ins-file': files.insFile }[kind];
  if (!extent) {
    throw new BadRequestError(
      `base image ${image.entry.openshiftVersion} ${image.entry.cpuArchitecture} has no ${kind} artifact`,
    );
  }
  return extent;
}
