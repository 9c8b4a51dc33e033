// The persisted record of one verified image: which configured source it came from, the
// file's size, mtime and sha256, and its parsed LiveManifest (plus the same for the rebuilt
// minimal ISO). Written atomically next to the image; read back at start so a verified
// image is reused without downloading, hashing or parsing it again.
//
// A record is trusted only while the file still has the recorded size and mtime and the
// configuration still names the same URL (and sha256, when given). A record whose manifest
// has an older `formatVersion` keeps its hash but gets its manifest re-parsed.
// It never holds secrets: the URL is stored redacted, with a digest of the full URL.
import type { Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { LiveManifest } from '../../iso/manifest.js';
import { writeFileAtomic } from './atomic-file.js';
import { urlDigest } from './cache-layout.js';
import { type OsImageEntry, redactUrl } from '../os-images-config.js';

/** The manifest format this build writes; records with another one are re-parsed. */
export const MANIFEST_FORMAT_VERSION: LiveManifest['formatVersion'] = 1;

export interface VerifiedFile {
  /** Absolute path of the ISO. */
  path: string;
  size: number;
  mtimeMs: number;
  /** Lower-case hex sha256 of the whole file (computed, and equal to the configured one if any). */
  sha256: string;
  manifest: LiveManifest;
}

export interface CacheRecord {
  recordVersion: 1;
  source: {
    /** Redacted (no credentials, no query). */
    url: string;
    urlSha256: string;
    expectedSha256?: string;
    openshiftVersion: string;
    version: string;
    cpuArchitecture: string;
  };
  /** True for a local file used where it is (never evicted or deleted by the store). */
  inPlace: boolean;
  iso: VerifiedFile;
  minimal?: VerifiedFile;
  verifiedAt: string;
  /** When the image was last handed out for serving (ISO 8601); drives the disk budget. */
  lastServedAt?: string;
}

export function newRecord(entry: OsImageEntry, iso: VerifiedFile, inPlace: boolean, now: Date): CacheRecord {
  return {
    recordVersion: 1,
    source: {
      url: redactUrl(entry.url),
      urlSha256: urlDigest(entry.url),
      ...(entry.sha256 ? { expectedSha256: entry.sha256 } : {}),
      openshiftVersion: entry.openshiftVersion,
      version: entry.version,
      cpuArchitecture: entry.cpuArchitecture,
    },
    inPlace,
    iso,
    verifiedAt: now.toISOString(),
  };
}

/** The record at `file`; undefined when it is missing or not a record this build understands. */
export async function readRecord(file: string): Promise<CacheRecord | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const record = JSON.parse(text) as CacheRecord;
    const ok =
      record?.recordVersion === 1 &&
      typeof record.source?.urlSha256 === 'string' &&
      isVerifiedFile(record.iso) &&
      (record.minimal === undefined || isVerifiedFile(record.minimal));
    return ok ? record : undefined;
  } catch {
    return undefined;
  }
}

export async function writeRecord(file: string, record: CacheRecord): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`);
}

/** Why `record` cannot vouch for the configured `entry`; undefined when it can. */
export function recordMismatch(record: CacheRecord, entry: OsImageEntry): string | undefined {
  if (record.source.urlSha256 !== urlDigest(entry.url)) return 'the configured URL changed';
  if (entry.sha256 && record.iso.sha256 !== entry.sha256) return 'the configured sha256 differs from the verified one';
  return undefined;
}

/** Why `verified` does not describe the file whose stat is `stat`; undefined when it does. */
export function fileMismatch(verified: VerifiedFile, stat: Stats): string | undefined {
  if (stat.size !== verified.size) return `size is ${stat.size}, ${verified.size} when verified`;
  if (stat.mtimeMs !== verified.mtimeMs) return 'modified since it was verified';
  return undefined;
}

function isVerifiedFile(v: unknown): v is VerifiedFile {
  const f = v as VerifiedFile | undefined;
  return (
    typeof f?.path === 'string' &&
    typeof f.size === 'number' &&
    typeof f.mtimeMs === 'number' &&
    typeof f.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(f.sha256) &&
    typeof f.manifest?.formatVersion === 'number'
  );
}
