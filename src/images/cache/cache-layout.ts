// Where the image store keeps each configured image under `${DATA_DIR}/images`:
//
//   <name>.iso              the verified full ISO (only ever created by an atomic rename)
//   <name>.iso.part         the download in progress (never served; resumed after a restart)
//   <name>.iso.part.json    what the .part was started from (validator, total) for a safe resume
//   <name>.zip / .zip.part  a zip source being downloaded / waiting to be extracted
//   <name>.minimal.iso      the minimal ISO rebuilt from coreos/miniso.dat (+ .part while building)
//   <name>.json             the persisted record (src/images/cache/cache-record.ts)
//   quarantine/             files that failed their integrity check (src/images/cache/quarantine.ts)
//
// <name> is `<openshift_version>-<arch>-<12 hex digits of sha256(url)>`: a changed URL is a new
// image, and the secret parts of a URL (a presigned query) never appear in a file name.
// This module computes names only; it does no I/O.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { OsImageEntry } from '../os-images-config.js';

export function imagesDirOf(dataDir: string): string {
  return path.join(dataDir, 'images');
}

export function urlDigest(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}

export function cacheName(entry: OsImageEntry): string {
  const version = entry.openshiftVersion.replace(/[^A-Za-z0-9._-]/g, '_');
  return `${version}-${entry.cpuArchitecture}-${urlDigest(entry.url).slice(0, 12)}`;
}

export class CacheFiles {
  readonly iso: string;
  readonly isoPart: string;
  readonly zip: string;
  readonly zipPart: string;
  readonly minimal: string;
  readonly minimalPart: string;
  readonly record: string;

  constructor(
    readonly dir: string,
    readonly name: string,
  ) {
    const base = path.join(dir, name);
    this.iso = `${base}.iso`;
    this.isoPart = `${base}.iso.part`;
    this.zip = `${base}.zip`;
    this.zipPart = `${base}.zip.part`;
    this.minimal = `${base}.minimal.iso`;
    this.minimalPart = `${base}.minimal.iso.part`;
    this.record = `${base}.json`;
  }

  /** The sidecar describing a `.part` file (see src/images/fetch/download.ts). */
  static partInfo(part: string): string {
    return `${part}.json`;
  }

  /** Every file this image may have in the cache. */
  all(): string[] {
    return [
      this.iso,
      this.isoPart,
      CacheFiles.partInfo(this.isoPart),
      this.zip,
      this.zipPart,
      CacheFiles.partInfo(this.zipPart),
      this.minimal,
      this.minimalPart,
      this.record,
    ];
  }

  /** Whether `fileName` (a name inside `dir`) belongs to this image. */
  owns(fileName: string): boolean {
    return fileName.startsWith(`${this.name}.`);
  }
}
