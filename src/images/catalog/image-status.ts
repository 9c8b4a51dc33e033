// The lifecycle of one configured image and how it is reported:
//
//   pending → downloading → (extracting) → verifying → ready ⇄ evicted
//                         ↘ failed (with the reason; retried on a schedule unless retrying
//                           cannot help)
//
// `evicted`: not on disk because of the disk budget; fetched again when next requested.
// A ready image whose cached file may have changed goes back to `verifying` (held: 503) while
// the file is compared with its record (src/images/loader/compare-with-record.ts).
// Also the /health representation of a state and of the image's integrity checks (snake_case,
// as the rest of /health) and its mapping onto the catalog's three states. No I/O.
import type { CatalogImage } from './catalog-image.js';
import type { LiveImage, MinimalState } from './live-image.js';
import { type OsImageEntry, describeSource } from '../os-images-config.js';
import type { TransferProgress } from '../progress.js';

export type WorkingState = 'downloading' | 'extracting' | 'verifying';

export type ImageStatus =
  | { state: 'pending' }
  | { state: WorkingState; progress: TransferProgress | undefined }
  | { state: 'ready'; image: LiveImage }
  | { state: 'evicted'; reason: string }
  | { state: 'failed'; reason: string; retryAt: number | undefined };

export type ImageState = ImageStatus['state'];

/** What the integrity checks know of an image's cached files (times in ms since the epoch). */
export interface IntegrityStatus {
  /**
   * `unverified`: no recorded file yet; `checking`: a file may have changed, serving is held
   * while it is compared; `verified`: every file matched its record at the last check.
   */
  state: 'unverified' | 'checking' | 'verified';
  /** Last comparison of the files with their records (stat, or full hash). */
  checkedAt?: number;
  /** The oldest of the files' last full-hash comparisons (or verification at download). */
  hashedAt?: number;
  /** When the background re-hash comes to the image again; absent when it is off. */
  nextHashAt?: number;
  /** Files that failed their check since the process started. */
  mismatches: number;
  lastMismatch?: IntegrityMismatch;
}

export interface IntegrityMismatch {
  at: number;
  /** File name inside DATA_DIR/images (or the local source's path). */
  file: string;
  reason: string;
  expectedSha256: string;
  actualSha256: string | undefined;
  /** `re-recorded`: a local source used in place changed, and its new content was verified. */
  action: 'quarantined' | 'deleted' | 're-recorded';
  /** Where the file went, relative to DATA_DIR/images. */
  quarantinedAs?: string;
}

/** What a registry source resolved to (src/images/cache/cache-record.ts RegistryResolution). */
export interface RegistryHealthSource {
  resolved: string;
  pulledFrom: string;
  machineOsImages?: string;
}

export function newIntegrityStatus(): IntegrityStatus {
  return { state: 'unverified', mismatches: 0 };
}

export const IMAGE_STATES: readonly ImageState[] = [
  'pending',
  'downloading',
  'extracting',
  'verifying',
  'ready',
  'evicted',
  'failed',
];

export interface ImageHealth {
  openshift_version: string;
  version: string;
  cpu_architecture: string;
  /** The configured URL without credentials or query string, or `release_image <reference>`. */
  source: string;
  /** Of a registry source: the reference pinned to the digest it resolved to (a tag is resolved once). */
  resolved?: string;
  /** Of a registry source: the physical reference the ISO was pulled from (a mirror or the source). */
  pulled_from?: string;
  /** Of a release_image: the machine-os-images image the ISO came from. */
  machine_os_images?: string;
  state: ImageState;
  reason?: string;
  /** While downloading, extracting or hashing. */
  bytes?: number;
  total_bytes?: number;
  percent?: number;
  bytes_per_second?: number;
  eta_seconds?: number;
  /** When a failed image is tried again (absent: not before a configuration change). */
  retry_at?: string;
  /** Of a ready image. */
  size?: number;
  sha256?: string;
  /** The stored file it is served from: `sha256-<hex>.iso` in DATA_DIR/images, or a local path used in place. */
  file?: string;
  /** The other configured entries served from the same file (one stored copy per distinct ISO). */
  shared_with?: string[];
  last_served_at?: string;
  minimal_iso?: { state: MinimalState['state']; reason?: string };
  integrity: IntegrityHealth;
  /** Of an image served while it downloads (IMAGE_SERVE_WHILE_DOWNLOADING): not verified yet. */
  serving_while_downloading?: {
    verified: false;
    local_bytes: number;
    total_bytes: number;
    bytes_read_from_source: number;
  };
}

export interface IntegrityHealth {
  state: IntegrityStatus['state'];
  checked_at?: string;
  hashed_at?: string;
  next_hash_at?: string;
  mismatches: number;
  last_mismatch?: {
    at: string;
    file: string;
    reason: string;
    expected_sha256: string;
    actual_sha256?: string;
    action: IntegrityMismatch['action'];
    quarantined_as?: string;
  };
}

export interface HealthView {
  entry: OsImageEntry;
  status: ImageStatus;
  sha256: string | undefined;
  file: string | undefined;
  registry: RegistryHealthSource | undefined;
  lastServedAt: number | undefined;
  integrity: IntegrityStatus;
}

/** `sharedWith`: labels (`4.17 x86_64`) of the other entries served from the same file now. */
export function toHealth(
  { entry, status, sha256, file, registry, lastServedAt, integrity }: HealthView,
  sharedWith?: readonly string[],
): ImageHealth {
  const health: ImageHealth = {
    openshift_version: entry.openshiftVersion,
    version: entry.version,
    cpu_architecture: entry.cpuArchitecture,
    source: describeSource(entry),
    ...(registry
      ? {
          resolved: registry.resolved,
          pulled_from: registry.pulledFrom,
          ...(registry.machineOsImages !== undefined ? { machine_os_images: registry.machineOsImages } : {}),
        }
      : {}),
    state: status.state,
    integrity: integrityHealth(integrity),
  };
  switch (status.state) {
    case 'pending':
      break;
    case 'downloading':
    case 'extracting':
    case 'verifying': {
      if (!status.progress) break;
      const p = status.progress.snapshot();
      Object.assign(health, {
        bytes: p.bytes,
        ...(p.total !== undefined ? { total_bytes: p.total } : {}),
        ...(p.percent !== undefined ? { percent: p.percent } : {}),
        bytes_per_second: p.bytesPerSecond,
        ...(p.etaSeconds !== undefined ? { eta_seconds: p.etaSeconds } : {}),
      });
      break;
    }
    case 'ready': {
      const { image } = status;
      health.size = image.base.size;
      if (sha256) health.sha256 = sha256;
      if (file !== undefined && !image.unverified) {
        health.file = file;
        if (sharedWith && sharedWith.length > 0) health.shared_with = [...sharedWith];
      }
      if (image.unverified) {
        const u = image.unverified.snapshot();
        health.serving_while_downloading = {
          verified: false,
          local_bytes: u.localBytes,
          total_bytes: u.totalBytes,
          bytes_read_from_source: u.origin,
        };
      }
      health.minimal_iso = {
        state: image.minimalState.state,
        ...(image.minimalState.state === 'failed' ? { reason: image.minimalState.reason } : {}),
      };
      break;
    }
    case 'evicted':
      health.reason = status.reason;
      break;
    case 'failed':
      health.reason = status.reason;
      if (status.retryAt !== undefined) health.retry_at = new Date(status.retryAt).toISOString();
      break;
  }
  if (lastServedAt !== undefined) health.last_served_at = new Date(lastServedAt).toISOString();
  return health;
}

function integrityHealth(i: IntegrityStatus): IntegrityHealth {
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const m = i.lastMismatch;
  return {
    state: i.state,
    ...(i.checkedAt !== undefined ? { checked_at: iso(i.checkedAt)! } : {}),
    ...(i.hashedAt !== undefined ? { hashed_at: iso(i.hashedAt)! } : {}),
    ...(i.nextHashAt !== undefined ? { next_hash_at: iso(i.nextHashAt)! } : {}),
    mismatches: i.mismatches,
    ...(m
      ? {
          last_mismatch: {
            at: iso(m.at)!,
            file: m.file,
            reason: m.reason,
            expected_sha256: m.expectedSha256,
            ...(m.actualSha256 !== undefined ? { actual_sha256: m.actualSha256 } : {}),
            action: m.action,
            ...(m.quarantinedAs !== undefined ? { quarantined_as: m.quarantinedAs } : {}),
          },
        }
      : {}),
  };
}

export function catalogState(state: ImageState): CatalogImage['state'] {
  if (state === 'ready' || state === 'failed') return state;
  return 'pending';
}
