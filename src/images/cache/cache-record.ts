// The persisted record of one verified image: which configured source it came from, and for
// each cached FILE (the full ISO, the rebuilt minimal ISO) its sha256, its stat fingerprint
// (size, mtime, inode, ctime), when its whole content was last hashed and compared, and its
// parsed LiveManifest. Written atomically next to the image; read back at start so a verified
// image is reused without downloading, hashing or parsing it again.
//
// The recorded sha256 is the file's identity: it is compared, never replaced, by the integrity
// checks (src/images/loader/compare-with-record.ts). The stat fingerprint is only the cheap
// first test: when it differs the content is hashed and compared; a match refreshes the
// fingerprint, a mismatch quarantines the file. A record vouches for the configuration only
// while it names the same URL (and sha256, when given). A record whose manifest has an older
// `formatVersion` keeps its hash but gets its manifest re-parsed.
// It never holds secrets: the URL is stored redacted, with a digest of the full URL.
import type { Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { LiveManifest } from '../../iso/manifest.js';
import { writeFileAtomic } from '../../fs/atomic-file.js';
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
  /** Inode and ctime when recorded (absent in records of older builds: compared once they are). */
  ino?: number;
  ctimeMs?: number;
  /** When the whole content was last hashed and found equal to `sha256` (ISO 8601). */
  checkedAt?: string;
}

/** The stat fields a record keeps of its file: the cheap test of whether it may have changed. */
export type StatFingerprint = Pick<Stats, 'size' | 'mtimeMs' | 'ino' | 'ctimeMs'>;

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
  /**
   * Why a check doubted the files while they were served (set when serving was held, so a
   * restart before the comparison ended still hashes them whatever their stat); removed once
   * they were compared.
   */
  distrusted?: string;
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

/**
 * Why `verified` may not describe the file whose stat is `stat` (its size, mtime, inode or ctime
 * differ from the recorded ones); undefined when the stat matches. Inode and ctime are compared
 * when the record has them: a byte written with the mtime put back still moves the ctime.
 */
export function fileMismatch(verified: VerifiedFile, stat: StatFingerprint): string | undefined {
  if (stat.size !== verified.size) return `size is ${stat.size}, ${verified.size} when verified`;
  if (stat.mtimeMs !== verified.mtimeMs) return 'modified since it was verified (mtime)';
  if (verified.ino !== undefined && stat.ino !== verified.ino) return 'replaced since it was verified (inode)';
  if (verified.ctimeMs !== undefined && stat.ctimeMs !== verified.ctimeMs)
    return 'changed since it was verified (ctime: content, owner, mode or links)';
  return undefined;
}

/** `verified` with the fingerprint of `stat` (same content, new metadata). */
export function withFingerprint(verified: VerifiedFile, stat: StatFingerprint): VerifiedFile {
  return { ...verified, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, ctimeMs: stat.ctimeMs };
}

/** Whether the record has the whole fingerprint (records of older builds lack inode and ctime). */
export function hasFullFingerprint(verified: VerifiedFile): boolean {
  return verified.ino !== undefined && verified.ctimeMs !== undefined;
}

function isVerifiedFile(v: unknown): v is VerifiedFile {
  const f = v as VerifiedFile | undefined;
  return (
    typeof f?.path === 'string' &&
    typeof f.size === 'number' &&
    typeof f.mtimeMs === 'number' &&
    typeof f.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(f.sha256) &&
    (f.ino === undefined || typeof f.ino === 'number') &&
    (f.ctimeMs === undefined || typeof f.ctimeMs === 'number') &&
    (f.checkedAt === undefined || typeof f.checkedAt === 'string') &&
    typeof f.manifest?.formatVersion === 'number'
  );
}
