// What the serving path gets for a ready base image: the opened full ISO and its parsed
// manifest, and, when the ISO carries coreos/miniso.dat and the rebuild succeeded, the
// minimal ISO the same way. `minimalState` says why `minimal` is absent.
// Types only.
import type { LiveManifest } from '../../iso/manifest.js';
import type { BaseFile } from '../../splice/base-file.js';
import type { OsImageEntry } from '../os-images-config.js';

export type MinimalState =
  /** The full ISO has no coreos/miniso.dat: no minimal ISO can be made from it. */
  | { state: 'absent' }
  | { state: 'pending' }
  | { state: 'building' }
  | { state: 'ready' }
  | { state: 'failed'; reason: string };

export interface MinimalVariant {
  base: BaseFile;
  manifest: LiveManifest;
}

export interface LiveImage {
  entry: OsImageEntry;
  /** Identity `sha256:<hex>`: ETags are stable across restarts and replicas. */
  base: BaseFile;
  manifest: LiveManifest;
  minimal?: MinimalVariant;
  minimalState: MinimalState;
  /**
   * Present while the image is served before its download finished and was verified
   * (IMAGE_SERVE_WHILE_DOWNLOADING): how far the download is, what was read from the source.
   */
  unverified?: { snapshot(): UnverifiedProgress };
}

export interface UnverifiedProgress {
  localBytes: number;
  totalBytes: number;
  /** Bytes served from the source, from the local `.part`, and how many ranged reads the source got. */
  origin: number;
  local: number;
  originReads: number;
}
