// Getting one configured image to a verified file with a persisted record — the store's
// pipeline for a single image, whatever its origin:
//
//   local ISO      used in place; reused while it matches its record
//                  (src/images/loader/compare-with-record.ts); when its content changed, the local
//                  source is the truth: it is verified again (sha256 if configured, CoreOS layout)
//                  and recorded with its new sha256, and the change is reported, never moved
//   remote ISO     <name>.iso reused while it matches its record; a file whose content no longer
//                  matches the recorded sha256 (or that no record vouches for) is quarantined and
//                  the image fetched again; else downloaded into <name>.iso.part (resumable),
//                  verified, recorded, fsynced and renamed
//   zip (local or remote)  the zip (downloaded into <name>.zip.part → <name>.zip) has its single
//                  ISO extracted into <name>.iso.part, then as a remote ISO; the zip is removed
//
// Only a renamed, verified file is ever handed back, so a killed process never leaves a file
// that gets served; its record is written before the rename, so no cached ISO lacks one. Content
// failures delete the .part (resuming bad bytes cannot help); transient ones keep it; a full
// disk deletes it (src/images/cache/disk-full.ts), and a download or extraction of known size that
// would leave less than IMAGE_DISK_RESERVE_BYTES free is refused before it writes. Writes wait
// for the write gate (the embedded database starts first). It reports stages and bytes through
// LoadContext and leaves opening, serving and retry scheduling to the loader
// (src/images/loader/image-loader.ts) and the disk budget to src/images/cache/cache-budget.ts.
import { type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../../errors.js';
import { removeFiles, renameDurably, statIfExists } from '../../fs/atomic-file.js';
import { CacheFiles } from '../cache/cache-layout.js';
import {
  type CacheRecord,
  MANIFEST_FORMAT_VERSION,
  type VerifiedFile,
  newRecord,
  readRecord,
  recordMismatch,
  withFingerprint,
  writeRecord,
} from '../cache/cache-record.js';
import { diskFullCode, diskFullError } from '../cache/disk-full.js';
import { downloadToFile, removePart } from '../fetch/download.js';
import type { WorkingState } from '../catalog/image-status.js';
import { compareWithRecord } from './compare-with-record.js';
import type { FileMismatch } from './integrity-report.js';
import { ImageLoadError } from './load-error.js';
import type { OsImageEntry } from '../os-images-config.js';
import { type RetryPolicy, retryClassOf } from './retry-policy.js';
import type { ImageOrigin } from '../fetch/origin.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import { parseAsLiveIso, verifyIso } from '../fetch/verify-iso.js';
import { extractSingleIso } from '../fetch/zip-extract.js';

export interface LoadContext {
  entry: OsImageEntry;
  /** e.g. `4.17 x86_64`, for messages. */
  label: string;
  origin: ImageOrigin;
  /** Undefined without a cache directory: only local ISOs work, and nothing is persisted. */
  files: CacheFiles | undefined;
  policy: RetryPolicy;
  signal: AbortSignal;
  now(): Date;
  /** Enters a stage; `total`/`already` describe its bytes when it has any. */
  stage(state: WorkingState, total?: number, already?: number): void;
  /** `bytes` more of the current stage are done. */
  advance(bytes: number): void;
  /** This image will occupy `bytes` in the cache in all; throws when the disk budget refuses. */
  reserve(bytes: number): void;
  notice(message: string, context?: Record<string, unknown>): void;
  /** Why the files must be hashed even when their stat matches (serving was held); else undefined. */
  distrusted: string | undefined;
  /** Resolves once writing into the cache may start (the embedded database started first). */
  mayWrite(): Promise<void>;
  /** Throws (slow retry) when writing `bytes` more would leave less than IMAGE_DISK_RESERVE_BYTES free. */
  assertRoom(bytes: number): void;
  /** A file failed its comparison with its record: quarantined (cached) or noted (in place), reported. */
  mismatch(m: FileMismatch): Promise<void>;
}

/** The verified record of the image, after fetching and verifying whatever was needed. */
export async function obtainIso(ctx: LoadContext): Promise<CacheRecord> {
  const existing = ctx.files ? await readRecord(ctx.files.record) : undefined;
  if (ctx.origin.kind === 'local' && !ctx.origin.zip) return inPlace(ctx, ctx.origin.path, existing);
  return cached(ctx, requireFiles(ctx), existing);
}

async function inPlace(ctx: LoadContext, path: string, existing: CacheRecord | undefined): Promise<CacheRecord> {
  const st = await statLocal(path, ctx.label);
  const vouching = existing?.inPlace && existing.iso.path === path && recordMismatch(existing, ctx.entry) === undefined;
  let known: { sha256: string } | undefined;
  if (vouching) {
    const compared = await compareWithRecord(existing.iso, compareOptions(ctx));
    if (compared.verdict === 'same') return keep(ctx, existing, compared.verified, compared.rewrite);
    if (compared.actualSha256 !== undefined) known = { sha256: compared.actualSha256 };
  }
  ctx.stage('verifying', st.size);
  const verified = await verifyIso(path, { ...verifyOptions(ctx), ...known });
  if (vouching && verified.sha256 !== existing.iso.sha256) {
    await ctx.mismatch({
      path,
      what: 'ISO',
      reason: 'the local source changed',
      expectedSha256: existing.iso.sha256,
      actualSha256: verified.sha256,
      inPlace: true,
      bytes: 0,
      remedy: 'recorded with its new sha256',
    });
  }
  const record = newRecord(ctx.entry, { ...verified, checkedAt: ctx.now().toISOString() }, true, ctx.now());
  if (ctx.files) await writeRecord(ctx.files.record, record);
  return record;
}

async function cached(ctx: LoadContext, files: CacheFiles, found: CacheRecord | undefined): Promise<CacheRecord> {
  const st = await statIfExists(files.iso);
  const existing = found && relocated(found, files);
  if (st) {
    const vouching =
      existing && !existing.inPlace && recordMismatch(existing, ctx.entry) === undefined ? existing : undefined;
    if (vouching) {
      const compared = await compareWithRecord(vouching.iso, compareOptions(ctx));
      if (compared.verdict === 'same') {
        ctx.reserve(vouching.iso.size + (vouching.minimal?.size ?? 0));
        return keep(ctx, vouching, compared.verified, compared.rewrite || vouching !== found);
      }
      // the recorded sha256 is the truth: the changed file goes, the image is fetched again
      await ctx.mismatch({
        path: files.iso,
        what: 'ISO',
        reason: compared.reason,
        expectedSha256: vouching.iso.sha256,
        actualSha256: compared.actualSha256,
        inPlace: false,
        bytes: compared.stat?.size ?? vouching.iso.size,
        remedy: 'the image is fetched again',
      });
      await removeFiles(files.minimal, files.record); // built from it, recorded with it
    } else if (ctx.entry.sha256) {
      // the configured sha256 vouches (no record, or one written for another configured sha256)
      ctx.reserve(st.size);
      ctx.stage('verifying', st.size);
      try {
        return await record(ctx, files, await verifyIso(files.iso, verifyOptions(ctx)));
      } catch (err) {
        if (retryClassOf(err) !== 'never') throw err;
        ctx.notice('cached image failed verification; fetching it again', { reason: describeError(err) });
        await removeFiles(files.iso, files.minimal, files.record);
      }
    } else {
      // nothing recorded its sha256 (a record lost or unreadable): it cannot be compared, so it is not served
      await ctx.mismatch({
        path: files.iso,
        what: 'ISO',
        reason: found ? 'its record describes another file' : 'no readable record vouches for it',
        expectedSha256: found?.iso.sha256 ?? 'unknown',
        actualSha256: undefined,
        inPlace: false,
        bytes: st.size,
        remedy: 'the image is fetched again',
      });
      await removeFiles(files.minimal, files.record);
    }
  }

  await ctx.mayWrite();
  let fetched: { sha256: string; size: number };
  if (ctx.origin.kind === 'local' || ctx.origin.zip) {
    const zip = ctx.origin.kind === 'local' ? ctx.origin.path : await fetchZip(ctx, ctx.origin.source, files);
    if (ctx.origin.kind === 'local') await statLocal(zip, ctx.label);
    fetched = await extract(ctx, zip, files);
  } else {
    fetched = await download(ctx, ctx.origin.source, files.isoPart);
  }

  ctx.stage('verifying');
  let verified: VerifiedFile;
  try {
    verified = await verifyIso(files.isoPart, { ...verifyOptions(ctx), sha256: fetched.sha256 });
  } catch (err) {
    if (retryClassOf(err) === 'never') await removePart(files.isoPart);
    throw err;
  }
  // recorded before the rename: a killed process never leaves a cached ISO without its sha256
  const result = await record(ctx, files, { ...verified, path: files.iso });
  await renameDurably(files.isoPart, files.iso);
  await removeFiles(CacheFiles.partInfo(files.isoPart), files.zip);
  // the rename moved the ctime: record the fingerprint of the final file
  result.iso = withFingerprint(result.iso, await stat(files.iso));
  await writeRecord(files.record, result);
  return result;
}

/**
 * `record` with its files' paths in `files`: a record names absolute paths, and a DATA_DIR moved
 * (or restored elsewhere) keeps its files' names. Undefined when it names other files.
 */
function relocated(record: CacheRecord, files: CacheFiles): CacheRecord | undefined {
  if (record.inPlace || path.basename(record.iso.path) !== path.basename(files.iso)) return undefined;
  if (record.iso.path === files.iso && (!record.minimal || record.minimal.path === files.minimal)) return record;
  return {
    ...record,
    iso: { ...record.iso, path: files.iso },
    ...(record.minimal ? { minimal: { ...record.minimal, path: files.minimal } } : {}),
  };
}

async function record(ctx: LoadContext, files: CacheFiles, verified: VerifiedFile): Promise<CacheRecord> {
  const result = newRecord(ctx.entry, { ...verified, checkedAt: ctx.now().toISOString() }, false, ctx.now());
  await writeRecord(files.record, result);
  return result;
}

/** Downloads the zip unless a complete one is already there; returns its path. */
async function fetchZip(ctx: LoadContext, source: RemoteSource, files: CacheFiles): Promise<string> {
  if (await statIfExists(files.zip)) return files.zip;
  await download(ctx, source, files.zipPart);
  await renameDurably(files.zipPart, files.zip);
  await removeFiles(CacheFiles.partInfo(files.zipPart));
  return files.zip;
}

async function extract(ctx: LoadContext, zip: string, files: CacheFiles): Promise<{ sha256: string; size: number }> {
  const zipBytes = ctx.origin.kind === 'local' ? 0 : ((await statIfExists(zip))?.size ?? 0);
  try {
    return await extractSingleIso(zip, files.isoPart, ctx.label, {
      signal: ctx.signal,
      onStart: (size) => {
        ctx.reserve(zipBytes + size);
        ctx.assertRoom(size);
        ctx.stage('extracting', size);
      },
      onBytes: (n) => ctx.advance(n),
    });
  } catch (err) {
    const full = diskFullCode(err);
    if (full !== undefined) {
      await removeFiles(files.isoPart);
      throw diskFullError(err, full, files.isoPart, ctx.label);
    }
    if (retryClassOf(err) === 'never')
      await removeFiles(files.isoPart, ...(ctx.origin.kind === 'remote' ? [files.zip] : []));
    throw err;
  }
}

async function download(
  ctx: LoadContext,
  source: RemoteSource,
  part: string,
): Promise<{ sha256: string; size: number }> {
  let known = false;
  const result = await downloadToFile(
    source,
    part,
    {
      signal: ctx.signal,
      onStart: (total, already) => {
        known = total !== undefined;
        if (total !== undefined) {
          ctx.reserve(total);
          ctx.assertRoom(total - already);
        }
        ctx.stage('downloading', total, already);
      },
      onBytes: (n) => ctx.advance(n),
      onNotice: (message, context) => ctx.notice(message, context),
    },
    ctx.policy,
  );
  if (!known) ctx.reserve(result.size);
  return result;
}

/** `existing` with the file's re-checked `iso` (written when `rewrite`), its manifest re-parsed if older. */
async function keep(
  ctx: LoadContext,
  existing: CacheRecord,
  iso: VerifiedFile,
  rewrite: boolean,
): Promise<CacheRecord> {
  const { distrusted, ...rest } = existing;
  if (distrusted !== undefined) rewrite = true;
  let updated: CacheRecord = rewrite ? { ...rest, iso } : existing;
  if (rewrite && ctx.distrusted === undefined && iso.checkedAt !== existing.iso.checkedAt)
    ctx.notice('cached image unchanged: its metadata changed, its sha256 is the recorded one', {
      path: path.basename(iso.path),
    });
  if (existing.iso.manifest.formatVersion !== MANIFEST_FORMAT_VERSION) {
    ctx.stage('verifying');
    updated = { ...updated, iso: { ...updated.iso, manifest: await parseAsLiveIso(iso.path, ctx.label) } };
    rewrite = true;
  }
  if (rewrite && ctx.files) await writeRecord(ctx.files.record, updated);
  return updated;
}

function compareOptions(ctx: LoadContext) {
  return {
    distrusted: ctx.distrusted,
    signal: ctx.signal,
    now: ctx.now(),
    onHashStart: (size: number) => ctx.stage('verifying', size),
    onHashBytes: (n: number) => ctx.advance(n),
  };
}

function verifyOptions(ctx: LoadContext) {
  return {
    ...(ctx.entry.sha256 ? { expectedSha256: ctx.entry.sha256 } : {}),
    signal: ctx.signal,
    onHashBytes: (n: number) => ctx.advance(n),
    label: ctx.label,
  };
}

function requireFiles(ctx: LoadContext): CacheFiles {
  if (ctx.files) return ctx.files;
  throw new ImageLoadError(
    'internal',
    `${ctx.label}: downloading or unpacking an image needs a cache directory (DATA_DIR)`,
    'never',
  );
}

async function statLocal(path: string, label: string): Promise<Stats> {
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new ImageLoadError('upstream', `${label}: ${path} is not a regular file`, 'slow', { path });
    return st;
  } catch (err) {
    if (err instanceof ImageLoadError) throw err;
    throw new ImageLoadError(
      'upstream',
      `${label}: cannot read ${path}: ${describeError(err)}`,
      'slow',
      { path },
      { cause: err },
    );
  }
}
