// Turns an image-side request (which InfraEnv, which image, which artifact) into a
// SplicedFile ready for the HTTP range layer.
//
// Each artifact is built once per (content of the customization, base image, kind) and
// shared by every Range request that follows (a bounded LRU keyed by a hash of the
// content), so nothing is recompressed per request whatever the Ignition source caches.
// Knows nothing about HTTP headers or routes.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { BadRequestError } from '../errors.js';
import type { Credential, DiscoveryCustomization, DiscoveryImageType, IgnitionSource } from '../ignition/source.js';
import type { ImageRegistry, LiveImage } from '../images/registry.js';
import type { EmbedCompression } from '../initrd/embed-archive.js';
import type { Extent } from '../iso/manifest.js';
import { SplicedFile } from '../splice/spliced-file.js';
import { buildDiscoveryIso } from './discovery-iso.js';
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
}

export type BootArtifactKind = 'kernel' | 'rootfs' | 'initrd' | 'ins-file';

type BuiltKind = 'full-iso' | 'pxe-initrd';

export class ArtifactService {
  /** Built artifacts (or builds in flight), keyed by content fingerprint, base identity and kind. */
  private readonly built = new LRUCache<string, Promise<SplicedFile>>({ max: 1000 });
  /** Plain windows of base images (kernel, rootfs, ...), keyed by base identity and kind. */
  private readonly windows = new Map<string, SplicedFile>();

  constructor(
    private readonly registry: ImageRegistry,
    private readonly ignition: IgnitionSource,
    private readonly compression: EmbedCompression,
  ) {}

  async discoveryIso(request: ArtifactRequest, imageType: DiscoveryImageType): Promise<ServedArtifact> {
    const image = this.registry.resolve(request.version, request.arch);
    if (imageType === 'minimal-iso') {
      throw new BadRequestError(
        image.manifest.files.minisoData
          ? 'minimal ISOs are not served yet; request type=full-iso'
          : `minimal ISOs need a base image that carries coreos/miniso.dat, and ${image.entry.openshiftVersion} ${image.entry.cpuArchitecture} does not`,
      );
    }
    return this.customized(image, request, 'full-iso', 'full-iso', (c) => buildDiscoveryIso(image, c, this.compression));
  }

  async pxeInitrd(request: ArtifactRequest): Promise<ServedArtifact> {
    const image = this.registry.resolve(request.version, request.arch);
    return this.customized(image, request, 'full-iso', 'pxe-initrd', (c) => buildPxeInitrd(image, c, this.compression));
  }

  /** s390x `initrd.addrsize` matching the PXE initrd this InfraEnv gets. */
  async s390xInitrdAddrsize(request: ArtifactRequest): Promise<{ bytes: Buffer; lastModified: Date; etag: string }> {
    const image = this.registry.resolve(request.version, 's390x');
    const extent = image.manifest.files.initrdAddrsize;
    if (!extent) throw new BadRequestError(`base image ${image.entry.openshiftVersion} s390x has no images/initrd.addrsize`);
    const initrd = await this.pxeInitrd({ ...request, arch: 's390x' });
    const base = await image.base.readExactly(extent.offset, Math.min(extent.length, 16));
    return { bytes: initrdAddrsize(base, initrd.file.size), lastModified: initrd.lastModified, etag: initrd.file.etag };
  }

  bootArtifact(kind: BootArtifactKind, version: string | undefined, arch: string | undefined): ServedArtifact {
    const image = this.registry.resolve(version, arch);
    const extent = bootArtifactExtent(image, kind);
    const key = `${image.base.identity}|${kind}`;
    let file = this.windows.get(key);
    if (!file) {
      file = new SplicedFile(image.base, { window: extent });
      this.windows.set(key, file);
    }
    return { file, lastModified: image.base.mtime };
  }

  private async customized(
    image: LiveImage,
    request: ArtifactRequest,
    imageType: DiscoveryImageType,
    kind: BuiltKind,
    build: (c: DiscoveryCustomization) => Promise<SplicedFile>,
  ): Promise<ServedArtifact> {
    const customization = await this.ignition.discoveryCustomization({
      infraEnvId: request.infraEnvId,
      imageType,
      credential: request.credential,
    });
    const key = `${image.base.identity}|${kind}|${fingerprint(customization)}`;
    let pending = this.built.get(key);
    if (!pending) {
      pending = build(customization);
      this.built.set(key, pending);
      pending.catch(() => this.built.delete(key));
    }
    const file = await pending;
    const lastModified = customization.lastModified && customization.lastModified > image.base.mtime ? customization.lastModified : image.base.mtime;
    return { file, lastModified };
  }
}

function fingerprint(c: DiscoveryCustomization): string {
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
    throw new BadRequestError(`base image ${image.entry.openshiftVersion} ${image.entry.cpuArchitecture} has no ${kind} artifact`);
  }
  return extent;
}
