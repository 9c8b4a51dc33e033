// Where the image store keeps its files under `${DATA_DIR}/images`. Verified ISOs are keyed by
// their content; everything about fetching them is keyed by their source:
//
//   sha256-<hex>.iso          a verified full ISO, named by its sha256 (only ever created by an
//                             atomic rename); every configured source that yields these bytes
//                             shares it — one stored copy per distinct ISO
//   sha256-<hex>.minimal.iso  the minimal ISO rebuilt from that ISO's coreos/miniso.dat (+ .part
//                             while building), keyed by the full ISO it comes from
//   <source>.json             the persisted record of one source (src/images/cache/cache-record.ts):
//                             which content file it resolved to, and that file's fingerprint
//   <source>.iso.part         a download or registry pull in progress (never served; resumed
//                             after a restart)
//   <source>.iso.part.json    what the .part was started from (validator, total) for a safe resume
//   <source>.iso.part.oci.json  the registry layer a raw-blob .part holds (its resume)
//   <source>.zip / .zip.part  a zip source being downloaded / waiting to be extracted
//   quarantine/               files that failed their integrity check (src/images/cache/quarantine.ts)
//
// <source> is `<arch>-<12 hex digits of sha256(url)>` (`release_image:<reference>` hashed for a
// release payload; `-<12 hex digits of the sha256>` added when the entry configures one): entries
// naming one source share it whatever their openshift_version, and the
// secret parts of a URL (a presigned query) never appear in a file name. Caches written before
// content keying named everything `<openshift_version>-<arch>-<same 12 digits>`
// (`legacyNames`); the loader adopts such files without downloading again
// (src/images/loader/adopt-legacy.ts).
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

/** What an entry's source is recorded and hashed as: its URL, or `release_image:<reference>`. */
export function sourceLocator(entry: OsImageEntry): string {
  return entry.releaseImage !== undefined ? `release_image:${entry.releaseImage}` : entry.url!;
}

/**
 * The name of the source's files (not of the ISO: that is `contentIsoName`); an entry that
 * configures a sha256 has it in the name too (entries of one URL pinned differently are
 * different sources).
 */
export function cacheName(entry: OsImageEntry): string {
  const base = `${entry.cpuArchitecture}-${urlDigest(sourceLocator(entry)).slice(0, 12)}`;
  return entry.sha256 ? `${base}-${entry.sha256.slice(0, 12)}` : base;
}

/** The names the layout before content keying gave each entry's files (one per openshift_version). */
export function legacyNames(entries: readonly OsImageEntry[]): string[] {
  return [
    ...new Set(
      entries.map(
        (e) =>
          `${e.openshiftVersion.replace(/[^A-Za-z0-9._-]/g, '_')}-${e.cpuArchitecture}-${urlDigest(sourceLocator(e)).slice(0, 12)}`,
      ),
    ),
  ];
}

/** A verified full ISO's file name. */
export function contentIsoName(sha256: string): string {
  return `sha256-${sha256}.iso`;
}

/** The minimal ISO built from the full ISO `fullSha256`. */
export function contentMinimalName(fullSha256: string): string {
  return `sha256-${fullSha256}.minimal.iso`;
}

/**
 * The content-keyed files of the cache a source's record makes its own: the verified ISO (unless
 * a local file is used in place) and the minimal ISO rebuilt from it, which is always in the
 * cache, also for a file used in place.
 */
export function recordedContentNames(record: { inPlace: boolean; iso: { sha256: string } }): string[] {
  const minimal = contentMinimalName(record.iso.sha256);
  return record.inPlace ? [minimal] : [contentIsoName(record.iso.sha256), minimal];
}

/** Whether `fileName` is a content-keyed file (or its .part). */
export function isContentName(fileName: string): boolean {
  return /^sha256-[0-9a-f]{64}\.(?:minimal\.)?iso(?:\.part)?$/.test(fileName);
}

export class CacheFiles {
  readonly isoPart: string;
  readonly zip: string;
  readonly zipPart: string;
  readonly record: string;

  constructor(
    readonly dir: string,
    readonly name: string,
  ) {
    const base = path.join(dir, name);
    this.isoPart = `${base}.iso.part`;
    this.zip = `${base}.zip`;
    this.zipPart = `${base}.zip.part`;
    this.record = `${base}.json`;
  }

  /** The sidecar describing a `.part` file (see src/images/fetch/download.ts). */
  static partInfo(part: string): string {
    return `${part}.json`;
  }

  /** The registry pull's resume state of a `.part` (src/images/fetch/oci/oci-pull.ts ociPartState). */
  static ociState(part: string): string {
    return `${part}.oci.json`;
  }

  contentIso(sha256: string): string {
    return path.join(this.dir, contentIsoName(sha256));
  }

  contentMinimal(fullSha256: string): string {
    return path.join(this.dir, contentMinimalName(fullSha256));
  }

  /** Every file of this source (content files are shared: removed by reference, not here). */
  all(): string[] {
    return [
      this.isoPart,
      CacheFiles.partInfo(this.isoPart),
      CacheFiles.ociState(this.isoPart),
      this.zip,
      this.zipPart,
      CacheFiles.partInfo(this.zipPart),
      this.record,
    ];
  }

  /** Whether `fileName` (a name inside `dir`) is one of this source's files. */
  owns(fileName: string): boolean {
    return fileName.startsWith(`${this.name}.`);
  }
}

/** The files of the layout before content keying, `<name>.iso`, `.minimal.iso`, `.json` and parts. */
export class LegacyFiles {
  readonly iso: string;
  readonly minimal: string;
  readonly record: string;

  constructor(
    readonly dir: string,
    readonly name: string,
  ) {
    const base = path.join(dir, name);
    this.iso = `${base}.iso`;
    this.minimal = `${base}.minimal.iso`;
    this.record = `${base}.json`;
  }

  owns(fileName: string): boolean {
    return fileName.startsWith(`${this.name}.`);
  }
}
