// The configured base images and their readiness: each entry is opened and parsed once
// (src/iso/live-layout.ts) into a LiveImage that every request then shares.
//
// Looks images up by version (matching `version` or `openshift_version`) and architecture
// (with aliases). A failed or pending image never affects the others. This module reads
// local files only (`file://` URLs and absolute paths); it does not download anything.
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { BadRequestError, NotFoundError, UnavailableError, describeError } from '../errors.js';
import { parseLiveIso } from '../iso/live-layout.js';
import type { LiveManifest } from '../iso/manifest.js';
import { BaseFile } from '../splice/base-file.js';
import { type CatalogImage, type ImageCatalog, normalizeArchitecture } from './catalog.js';
import { type OsImageEntry, redactUrl } from './os-images-config.js';

export interface LiveImage {
  entry: OsImageEntry;
  base: BaseFile;
  manifest: LiveManifest;
}

type ImageState =
  | { state: 'pending' }
  | { state: 'ready'; image: LiveImage }
  | { state: 'failed'; reason: string };

interface Slot {
  entry: OsImageEntry;
  status: ImageState;
}

export interface ImageHealth {
  openshift_version: string;
  version: string;
  cpu_architecture: string;
  state: ImageState['state'];
  reason?: string;
}

/** Seconds a client should wait before retrying an image that is still loading. */
const PENDING_RETRY_SECONDS = 10;

export class ImageRegistry implements ImageCatalog {
  private readonly slots: Slot[];

  constructor(
    entries: readonly OsImageEntry[],
    readonly configProblems: readonly string[],
    private readonly logger: Logger,
  ) {
    this.slots = entries.map((entry) => ({ entry, status: { state: 'pending' } }));
  }

  /** Opens and parses every image; never throws (failures are recorded per image). */
  async loadAll(): Promise<void> {
    await Promise.all(this.slots.map((slot) => this.load(slot)));
  }

  private async load(slot: Slot): Promise<void> {
    const name = `${slot.entry.openshiftVersion}/${slot.entry.cpuArchitecture}`;
    try {
      const path = localPath(slot.entry.url);
      const started = Date.now();
      const manifest = await parseLiveIso(path);
      const base = await BaseFile.open(path, slot.entry.sha256 ? `sha256:${slot.entry.sha256}` : undefined);
      if (base.size !== manifest.size) {
        base.close();
        throw new Error(`${path} changed while it was being parsed`);
      }
      slot.status = { state: 'ready', image: { entry: slot.entry, base, manifest } };
      this.logger.info({ image: name, path, ms: Date.now() - started, embedAreaBytes: manifest.ignition.length }, 'base image ready');
    } catch (err) {
      slot.status = { state: 'failed', reason: describeError(err) };
      this.logger.error({ image: name, url: redactUrl(slot.entry.url), reason: describeError(err) }, 'base image unusable');
    }
  }

  /**
   * The ready image for `version` and `arch` (default x86_64). Throws BadRequestError for
   * a missing version or unknown architecture name, NotFoundError when nothing is configured
   * for them, UnavailableError when the image is still loading or failed to load.
   */
  resolve(version: string | undefined, arch: string | undefined): LiveImage {
    if (!version) throw new BadRequestError("'version' parameter required");
    const slot = this.slotFor(version, arch ?? 'x86_64');
    const name = `${slot.entry.openshiftVersion} ${slot.entry.cpuArchitecture}`;
    switch (slot.status.state) {
      case 'ready':
        return slot.status.image;
      case 'pending':
        throw new UnavailableError(`base image ${name} is not ready yet`, PENDING_RETRY_SECONDS, { version, arch });
      case 'failed':
        throw new UnavailableError(`base image ${name} is unusable: ${slot.status.reason}`, 300, { version, arch });
    }
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
    const images = this.slots.map(({ entry, status }) => ({
      openshift_version: entry.openshiftVersion,
      version: entry.version,
      cpu_architecture: entry.cpuArchitecture,
      state: status.state,
      ...(status.state === 'failed' ? { reason: status.reason } : {}),
    }));
    return { ready: images.some((i) => i.state === 'ready'), images, problems: this.configProblems };
  }

  close(): void {
    for (const slot of this.slots) if (slot.status.state === 'ready') slot.status.image.base.close();
  }
}

function toCatalogImage({ entry, status }: Slot): CatalogImage {
  return {
    openshiftVersion: entry.openshiftVersion,
    version: entry.version,
    cpuArchitecture: entry.cpuArchitecture,
    embedAreaBytes: status.state === 'ready' ? status.image.manifest.ignition.length : undefined,
    minimalIsoSupported: false,
    state: status.state,
  };
}

function localPath(url: string): string {
  if (url.startsWith('/')) return url;
  if (url.startsWith('file://')) return fileURLToPath(url);
  throw new Error(`${redactUrl(url)}: remote image sources are not supported yet; use a file:// URL or an absolute path`);
}
