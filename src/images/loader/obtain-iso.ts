// Getting one configured image to a verified file with a persisted record — the store's
// pipeline for a single image, whatever its origin:
//
//   local ISO      used in place; hashed and parsed unless the record still matches it
//   remote ISO     <name>.iso reused when its record matches; else downloaded into
//                  <name>.iso.part (resumable), verified, fsynced and renamed
//   zip (local or remote)  the zip (downloaded into <name>.zip.part → <name>.zip) has its single
//                  ISO extracted into <name>.iso.part, then as a remote ISO; the zip is removed
//
// Only a renamed, verified file is ever handed back, so a killed process never leaves a file
// that gets served. Content failures delete the .part (resuming bad bytes cannot help);
// transient ones keep it; a full disk deletes it (src/images/cache/disk-full.ts). It reports
// stages and bytes through LoadContext and leaves opening, serving and retry scheduling to the
// loader (src/images/loader/image-loader.ts) and the disk budget to src/images/cache/cache-budget.ts.
import { type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { describeError } from '../../errors.js';
import { removeFiles, renameDurably, statIfExists } from '../cache/atomic-file.js';
import { CacheFiles } from '../cache/cache-layout.js';
import {
  type CacheRecord,
  MANIFEST_FORMAT_VERSION,
  type VerifiedFile,
  fileMismatch,
  newRecord,
  readRecord,
  recordMismatch,
  writeRecord,
} from '../cache/cache-record.js';
import { diskFullCode, diskFullError } from '../cache/disk-full.js';
import { downloadToFile, removePart } from '../fetch/download.js';
import type { WorkingState } from '../catalog/image-status.js';
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
}

/** The verified record of the image, after fetching and verifying whatever was needed. */
export async function obtainIso(ctx: LoadContext): Promise<CacheRecord> {
  const existing = ctx.files ? await readRecord(ctx.files.record) : undefined;
  if (ctx.origin.kind === 'local' && !ctx.origin.zip) return inPlace(ctx, ctx.origin.path, existing);
  return cached(ctx, requireFiles(ctx), existing);
}

async function inPlace(ctx: LoadContext, path: string, existing: CacheRecord | undefined): Promise<CacheRecord> {
  const st = await statLocal(path, ctx.label);
  if (existing?.inPlace && existing.iso.path === path && trusted(existing, ctx.entry, st))
    return refreshManifest(ctx, existing);
  ctx.stage('verifying', st.size);
  const verified = await verifyIso(path, verifyOptions(ctx));
  const record = newRecord(ctx.entry, verified, true, ctx.now());
  if (ctx.files) await writeRecord(ctx.files.record, record);
  return record;
}

async function cached(ctx: LoadContext, files: CacheFiles, existing: CacheRecord | undefined): Promise<CacheRecord> {
  const st = await statIfExists(files.iso);
  if (st) {
    if (existing && !existing.inPlace && existing.iso.path === files.iso && trusted(existing, ctx.entry, st)) {
      ctx.reserve(existing.iso.size + (existing.minimal?.size ?? 0));
      return refreshManifest(ctx, existing);
    }
    // a verified file without a matching record (killed between rename and record, or the
    // configured sha256 changed): verify it again rather than download it again
    ctx.reserve(st.size);
    ctx.stage('verifying', st.size);
    try {
      return await record(ctx, files, await verifyIso(files.iso, verifyOptions(ctx)));
    } catch (err) {
      if (retryClassOf(err) !== 'never') throw err;
      ctx.notice('cached image failed verification; fetching it again', { reason: describeError(err) });
      await removeFiles(files.iso, files.minimal, files.record);
    }
  }

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
  await renameDurably(files.isoPart, files.iso);
  await removeFiles(CacheFiles.partInfo(files.isoPart), files.zip);
  return record(ctx, files, { ...verified, path: files.iso });
}

async function record(ctx: LoadContext, files: CacheFiles, verified: VerifiedFile): Promise<CacheRecord> {
  const result = newRecord(ctx.entry, verified, false, ctx.now());
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
        if (total !== undefined) ctx.reserve(total);
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

/** A record whose manifest format is older gets its manifest re-parsed (the hash stays). */
async function refreshManifest(ctx: LoadContext, existing: CacheRecord): Promise<CacheRecord> {
  if (existing.iso.manifest.formatVersion === MANIFEST_FORMAT_VERSION) return existing;
  ctx.stage('verifying');
  const updated: CacheRecord = {
    ...existing,
    iso: { ...existing.iso, manifest: await parseAsLiveIso(existing.iso.path, ctx.label) },
  };
  if (ctx.files) await writeRecord(ctx.files.record, updated);
  return updated;
}

function trusted(existing: CacheRecord, entry: OsImageEntry, st: Stats): boolean {
  return recordMismatch(existing, entry) === undefined && fileMismatch(existing.iso, st) === undefined;
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
