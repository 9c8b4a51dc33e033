// Settings of the image store read from the environment (documented in docs/operator/configuration.md):
//
//   IMAGE_DOWNLOAD_CONCURRENCY         images fetched/verified at once (default 2)
//   IMAGE_CACHE_MAX_BYTES              disk budget of ${DATA_DIR}/images: bytes, or with a suffix
//                                      K/M/G/T (powers of 1000) or Ki/Mi/Gi/Ti (powers of 1024);
//                                      unset or 0 = unlimited
//   OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE  PEM bundle trusted for https:// sources, in addition to the
//                                      default roots
//   OS_IMAGE_DOWNLOAD_HEADERS          JSON object of extra request headers for http(s):// sources,
//                                      e.g. {"Authorization": "Bearer ..."}; dropped on redirects
//                                      to another origin; never logged
//   HTTP_PROXY / HTTPS_PROXY / NO_PROXY  egress proxy for http(s):// sources (either case; lower
//                                      case wins); rules in src/images/fetch/proxy-env.ts; s3://
//                                      sources are not routed through it
//   AWS_REGION / AWS_DEFAULT_REGION    region of s3:// sources (default us-east-1)
//   AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL  endpoint of an S3-compatible store
//   S3_FORCE_PATH_STYLE                true: path-style addressing (most S3-compatible stores)
//   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN  static credentials; without
//                                      them the SDK's default chain (profiles, web identity, IMDS)
//   IMAGE_INTEGRITY_CHECK_INTERVAL     how often each cached file's stat is compared with its record
//                                      (Go duration; 0 = only inotify and the re-hash; default 1m)
//   IMAGE_INTEGRITY_REHASH_INTERVAL    each cached file is hashed again in the background once per
//                                      this (Go duration; 0 = never; default 24h)
//   IMAGE_INTEGRITY_REHASH_RATE        read rate of that background hash, bytes per second with the
//                                      suffixes of IMAGE_CACHE_MAX_BYTES (default 32Mi)
//   IMAGE_QUARANTINE_KEEP              files kept in DATA_DIR/images/quarantine (default 2; 0 = delete)
//   IMAGE_DISK_RESERVE_BYTES           bytes a download must leave free on the cache's disk (default
//                                      256Mi when the embedded PostgreSQL shares DATA_DIR, else 0)
//   REGISTRY_AUTH_FILE                 docker config.json / containers auth.json with the credentials
//                                      of oci:// and release_image sources (and their mirrors)
//   PULL_SECRET_FILE                   a pull secret (the same JSON form), searched after it
//   REGISTRY_CA_FILE                   PEM bundle trusted for registries, in addition to the default
//                                      roots; also written into every discovery Ignition
//   REGISTRIES_CONF_FILE               containers-registries.conf v2: mirrors for the pulls; also
//                                      written into every discovery Ignition for the hosts
//
// Invalid values throw ImageSettingsError naming the variable (never echoing a header value).
import { readFileSync } from 'node:fs';
import { parseDuration } from '../duration.js';
import { withContext } from '../errors.js';
import { MAX_QUARANTINE_KEEP } from './cache/quarantine.js';
import type { OciSettings } from './fetch/oci/oci-pull.js';
import { readOciSettingsSync } from './fetch/oci/oci-settings.js';
import type { SourceSettings } from './origins/origin-of.js';
import { ProxySettings } from './fetch/proxy-env.js';
import { ImageSettingsError } from './settings-error.js';

export interface ImageStoreSettings {
  concurrency: number;
  /** Undefined: no disk budget. */
  cacheMaxBytes: number | undefined;
  sources: SourceSettings;
  /** IMAGE_SERVE_WHILE_DOWNLOADING: serve remote ISOs before their download is verified (src/images/loader/serve-while-downloading.ts). */
  serveWhileDownloading?: boolean;
  integrity: IntegritySettings;
  /** IMAGE_DISK_RESERVE_BYTES: bytes a download or extraction must leave free (src/images/cache/free-space.ts). */
  diskReserveBytes: number;
}

/** The integrity checks of cached files (src/images/loader/integrity-watch.ts); 0 turns a check off. */
export interface IntegritySettings {
  checkIntervalMs: number;
  rehashIntervalMs: number;
  rehashBytesPerSecond: number;
  quarantineKeep: number;
}

/** A stat per cached file: cheap enough every minute; inotify notices most changes at once anyway. */
export const DEFAULT_INTEGRITY_CHECK_INTERVAL_MS = 60_000;
/** Bit rot and writes that keep the stat are rare: a daily full read of every cached file finds them. */
export const DEFAULT_REHASH_INTERVAL_MS = 24 * 3_600_000;
/** About 40 s for a 1.2 GB ISO, a few percent of one core and of a disk's bandwidth: serving keeps the rest. */
export const DEFAULT_REHASH_BYTES_PER_SECOND = 32 * 2 ** 20;
/** Each quarantined file may be a whole ISO: two are enough to compare what changed. */
export const DEFAULT_QUARANTINE_KEEP = 2;
/**
 * Room a download leaves free when the embedded PostgreSQL shares DATA_DIR: its max_wal_size
 * (src/core/db/embedded/server.ts), so a checkpoint never finds the disk filled by an image.
 */
export const DEFAULT_DATABASE_DISK_RESERVE_BYTES = 256 * 2 ** 20;

export { ImageSettingsError };

/** How long a download connection may stay silent before it is dropped and resumed. */
export const DOWNLOAD_IDLE_TIMEOUT_MS = 60_000;

export const DEFAULT_CONCURRENCY = 2;

/**
 * A registry blob silent this long is stalled: the pull reconnects (with Range) or fails. Half
 * of the OCI library's minute: a registry on the site network that sends nothing for 30 s is
 * broken, and a stalled image should fail (and show why in /health) within minutes.
 */
export const REGISTRY_BLOB_IDLE_MS = 30_000;
/** Reconnects per blob after a stall or a broken transfer: a stalled registry fails after
 *  (3 + 1) × REGISTRY_BLOB_IDLE_MS = 2 minutes instead of the library's 6. */
export const REGISTRY_MAX_RECONNECTS = 3;
/** Manifests (≤ 4 MiB), tokens, error bodies: 30 s is generous on any working link. */
export const REGISTRY_REQUEST_MS = 30_000;

/** Which setting each registry file comes from, in the order they are searched. */
const REGISTRY_VARIABLES = ['REGISTRY_AUTH_FILE', 'PULL_SECRET_FILE', 'REGISTRY_CA_FILE', 'REGISTRIES_CONF_FILE'];

/**
 * `embeddedDatabase`: the embedded PostgreSQL lives in DATA_DIR beside the cache, which makes
 * IMAGE_DISK_RESERVE_BYTES default to DEFAULT_DATABASE_DISK_RESERVE_BYTES instead of 0.
 */
export function imageStoreSettingsFromEnvironment(
  env: NodeJS.ProcessEnv,
  { embeddedDatabase = false }: { embeddedDatabase?: boolean } = {},
): ImageStoreSettings {
  return {
    concurrency: concurrencyFrom(env.IMAGE_DOWNLOAD_CONCURRENCY),
    cacheMaxBytes: byteSizeFrom(env.IMAGE_CACHE_MAX_BYTES),
    serveWhileDownloading: booleanFrom('IMAGE_SERVE_WHILE_DOWNLOADING', env.IMAGE_SERVE_WHILE_DOWNLOADING),
    integrity: {
      checkIntervalMs: durationFrom(
        'IMAGE_INTEGRITY_CHECK_INTERVAL',
        env.IMAGE_INTEGRITY_CHECK_INTERVAL,
        DEFAULT_INTEGRITY_CHECK_INTERVAL_MS,
      ),
      rehashIntervalMs: durationFrom(
        'IMAGE_INTEGRITY_REHASH_INTERVAL',
        env.IMAGE_INTEGRITY_REHASH_INTERVAL,
        DEFAULT_REHASH_INTERVAL_MS,
      ),
      rehashBytesPerSecond: rateFrom(env.IMAGE_INTEGRITY_REHASH_RATE),
      quarantineKeep: keepFrom(env.IMAGE_QUARANTINE_KEEP),
    },
    diskReserveBytes:
      env.IMAGE_DISK_RESERVE_BYTES === undefined || env.IMAGE_DISK_RESERVE_BYTES.trim() === ''
        ? embeddedDatabase
          ? DEFAULT_DATABASE_DISK_RESERVE_BYTES
          : 0
        : (byteSizeFrom(env.IMAGE_DISK_RESERVE_BYTES, 'IMAGE_DISK_RESERVE_BYTES') ?? 0),
    sources: {
      http: {
        headers: headersFrom(env.OS_IMAGE_DOWNLOAD_HEADERS),
        ca: caFrom(env.OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE),
        idleTimeoutMs: DOWNLOAD_IDLE_TIMEOUT_MS,
        proxy: ProxySettings.fromEnvironment(env),
      },
      s3: {
        region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
        endpoint: env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined,
        forcePathStyle: booleanFrom('S3_FORCE_PATH_STYLE', env.S3_FORCE_PATH_STYLE),
        credentials:
          env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
            ? {
                accessKeyId: env.AWS_ACCESS_KEY_ID,
                secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
                ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
              }
            : undefined,
        idleTimeoutMs: DOWNLOAD_IDLE_TIMEOUT_MS,
      },
      registry: registryFrom(env),
    },
  };
}

/** The OCI source's settings: its files read and checked now, so a bad one stops the start. */
function registryFrom(env: NodeJS.ProcessEnv): OciSettings {
  let settings: OciSettings;
  try {
    settings = readOciSettingsSync({
      authFile: env.REGISTRY_AUTH_FILE || undefined,
      pullSecretFile: env.PULL_SECRET_FILE || undefined,
      caFile: env.REGISTRY_CA_FILE || undefined,
      registriesConfFile: env.REGISTRIES_CONF_FILE || undefined,
    });
  } catch (err) {
    // the messages start with the variable's name and name paths only (never a credential)
    const message = (err as Error).message;
    const variable = REGISTRY_VARIABLES.find((v) => message.startsWith(`${v} `)) ?? 'REGISTRY_AUTH_FILE';
    throw new ImageSettingsError(
      variable,
      message.startsWith(`${variable} `) ? message.slice(variable.length + 1) : message,
    );
  }
  return {
    ...settings,
    timeouts: { ...settings.timeouts, requestMs: REGISTRY_REQUEST_MS, idleMs: REGISTRY_BLOB_IDLE_MS },
    maxReconnects: REGISTRY_MAX_RECONNECTS,
  };
}

/** The settings with no environment at all (what an image store built without settings uses). */
export function defaultImageStoreSettings(): ImageStoreSettings {
  return imageStoreSettingsFromEnvironment({});
}

function concurrencyFrom(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_CONCURRENCY;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    throw new ImageSettingsError(
      'IMAGE_DOWNLOAD_CONCURRENCY',
      `must be a whole number from 1 to 64, not ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

const SUFFIXES: Record<string, number> = {
  '': 1,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** `50Gi` → 53687091200; unset, empty or 0 → undefined (no budget). */
export function byteSizeFrom(raw: string | undefined, name = 'IMAGE_CACHE_MAX_BYTES'): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(|K|M|G|T|Ki|Mi|Gi|Ti)B?$/.exec(raw.trim());
  const value = m ? Math.floor(Number(m[1]) * SUFFIXES[m[2]!]!) : NaN;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ImageSettingsError(
      name,
      `must be a byte count such as 53687091200, 50G or 50Gi, not ${JSON.stringify(raw)}`,
    );
  }
  return value === 0 ? undefined : value;
}

/** A Go duration (`90s`, `24h`), or `0` for off. */
function durationFrom(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (raw.trim() === '0') return 0;
  const value = parseDuration(raw.trim());
  if (value === undefined || value <= 0)
    throw new ImageSettingsError(
      name,
      `must be a duration such as 90s, 30m or 24h (or 0 for off), not ${JSON.stringify(raw)}`,
    );
  return value;
}

/** Slower than this, a 1 GB ISO would take hours to re-hash: most likely a typo. */
const MIN_REHASH_BYTES_PER_SECOND = 64 * 1024;

function rateFrom(raw: string | undefined): number {
  const value = byteSizeFrom(raw, 'IMAGE_INTEGRITY_REHASH_RATE');
  if (value === undefined) {
    if (raw !== undefined && raw.trim() !== '')
      throw new ImageSettingsError(
        'IMAGE_INTEGRITY_REHASH_RATE',
        'must be above 0 (set IMAGE_INTEGRITY_REHASH_INTERVAL=0 to turn the re-hash off)',
      );
    return DEFAULT_REHASH_BYTES_PER_SECOND;
  }
  if (value < MIN_REHASH_BYTES_PER_SECOND)
    throw new ImageSettingsError(
      'IMAGE_INTEGRITY_REHASH_RATE',
      `must be at least 64Ki (bytes per second), not ${JSON.stringify(raw)}`,
    );
  return value;
}

function keepFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_QUARANTINE_KEEP;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > MAX_QUARANTINE_KEEP)
    throw new ImageSettingsError(
      'IMAGE_QUARANTINE_KEEP',
      `must be a whole number from 0 to ${MAX_QUARANTINE_KEEP}, not ${JSON.stringify(raw)}`,
    );
  return value;
}

function headersFrom(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ImageSettingsError(
      'OS_IMAGE_DOWNLOAD_HEADERS',
      'must be a JSON object of header names to string values (it is not valid JSON)',
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ImageSettingsError('OS_IMAGE_DOWNLOAD_HEADERS', 'must be a JSON object of header names to string values');
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new ImageSettingsError(
        'OS_IMAGE_DOWNLOAD_HEADERS',
        `entry ${JSON.stringify(name)} must be a valid header name with a string value`,
      );
    }
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

function caFrom(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const pem = withContext(
    'cannot be read',
    () => readFileSync(file, 'utf8'),
    (message) => new ImageSettingsError('OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE', message),
  );
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ImageSettingsError('OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE', `${file} holds no PEM certificate`);
  }
  return pem;
}

function booleanFrom(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ImageSettingsError(name, `must be true or false, not ${JSON.stringify(raw)}`);
}
