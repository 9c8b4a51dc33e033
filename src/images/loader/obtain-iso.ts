// Getting one configured source to a verified file with a persisted record — the store's
// pipeline for a single source (one or more OS_IMAGES entries naming it), the same for every
// origin (src/images/origins/image-origin.ts: a local file, a block device, HTTP(S), S3, a zip, a
// registry):
//
//   in place       an origin whose ISO may be used where it lies (a local regular file) and no
//                  cached copy of it is recorded: reused while it matches its record
//                  (src/images/loader/compare-with-record.ts); when its content changed, the local
//                  source is the truth: it is verified again (sha256 if configured, CoreOS layout)
//                  and recorded with its new sha256, and the change is reported, never moved
//   cached         the content file its record names is reused while it matches the record; a
//                  file whose content no longer matches the recorded sha256 is quarantined and
//                  the image written again; else the origin writes the ISO into <source>.iso.part
//                  (resuming what an earlier attempt left where it can), and the install verifies,
//                  deduplicates, records, fsyncs and renames it to sha256-<hex>.iso
//
// Files are content-keyed (src/images/cache/cache-layout.ts): a verified ISO whose sha256 another
// source already stores and serves is not stored twice — the .part is dropped and the record
// names the existing file. An entry with a configured sha256 adopts a stored file of that sha256
// (hashed first) without writing. Installs and comparisons of one content file run one at a
// time (ctx.shared.exclusive). A cache of the layout before content keying
// (<openshift_version>-<arch>-<hash>.iso and .json) is adopted in place: compared with its record,
// renamed, recorded again — no download.
//
// Only a renamed, verified file is ever handed back, so a killed process never leaves a file
// that gets served; its record is written before the rename, so no cached ISO lacks one. A failed
// write loses its .part as its origin says (ImageOrigin.discardPartOn, applied here once for all:
// wrong bytes and a full disk delete it, transient faults keep it to resume, a copy that cannot
// resume loses it always); a full disk becomes the error naming the disk
// (src/images/load-failure/disk-full.ts). Origins ask the disk budget before they write: a write
// of known size that would leave less than IMAGE_DISK_RESERVE_BYTES free is refused before its
// first byte. Writes wait for the write gate (the embedded database starts first). It reports
// stages and bytes through LoadContext and leaves opening, serving and retry scheduling to the
// loader (src/images/loader/image-loader.ts) and the disk budget to src/images/cache/cache-budget.ts.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../../errors.js';
import { removeFiles, renameDurably, statIfExists } from '../../fs/atomic-file.js';
import { CacheFiles, type LegacyFiles } from '../cache/cache-layout.js';
import {
  type CacheRecord,
  MANIFEST_FORMAT_VERSION,
  type RegistryResolution,
  type VerifiedFile,
  fileMismatch,
  newRecord,
  readRecord,
  recordMismatch,
  withFingerprint,
  writeRecord,
} from '../cache/cache-record.js';
import type { WorkingState } from '../catalog/image-status.js';
import { hashFile, parseAsLiveIso, verifyIso } from '../fetch/verify-iso.js';
import { diskFullCode, diskFullError } from '../load-failure/disk-full.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { type RetryPolicy, retryClassOf } from '../load-failure/retry-policy.js';
import type { ImageOrigin, WrittenIso } from '../origins/image-origin.js';
import type { OsImageEntry } from '../os-images-config.js';
import { compareWithRecord } from './compare-with-record.js';
import type { FileMismatch } from './integrity-report.js';

/** What a load may know of the other sources' content files (src/images/loader/shared-content.ts). */
export interface SharedFiles {
  /** The record of the file of `sha256` another source serves now (verified, ready), if any. */
  servedCopy(sha256: string): VerifiedFile | undefined;
  /** Whether another source's record names `file`. */
  referencedElsewhere(file: string): boolean;
  /** Runs `work` alone among the works given the same key (a content file's sha256). */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T>;
}

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
  shared: SharedFiles;
  /** Files of this source in the layout before content keying (adopted when there is no record). */
  legacy: readonly LegacyFiles[];
  /** What an earlier pull of this registry source resolved to (a tag is resolved once). */
  registry: RegistryResolution | undefined;
}

/** The verified record of the image, after fetching and verifying whatever was needed. */
export async function obtainIso(ctx: LoadContext): Promise<CacheRecord> {
  const existing = ctx.files ? await readRecord(ctx.files.record) : undefined;
  // a recorded cached copy (of a block device, say) is reused without asking the origin
  const copyRecorded = existing && !existing.inPlace && recordMismatch(existing, ctx.entry) === undefined;
  if (!copyRecorded) {
    const local = await ctx.origin.inPlace?.(ctx.label);
    if (local) return inPlace(ctx, local.path, existing, local.size);
  }
  return cached(ctx, requireFiles(ctx), existing);
}

async function inPlace(
  ctx: LoadContext,
  path: string,
  existing: CacheRecord | undefined,
  size: number,
): Promise<CacheRecord> {
  const vouching = existing?.inPlace && existing.iso.path === path && recordMismatch(existing, ctx.entry) === undefined;
  let known: { sha256: string } | undefined;
  if (vouching) {
    const compared = await compareWithRecord(existing.iso, compareOptions(ctx));
    if (compared.verdict === 'same') return keep(ctx, existing, compared.verified, compared.rewrite);
    if (compared.actualSha256 !== undefined) known = { sha256: compared.actualSha256 };
  }
  ctx.stage('verifying', size);
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
  const existing = (found && relocated(found, files)) ?? (found ? undefined : await adoptLegacy(ctx, files));
  const vouching =
    existing && !existing.inPlace && recordMismatch(existing, ctx.entry) === undefined ? existing : undefined;
  if (vouching) {
    const kept = await ctx.shared.exclusive(vouching.iso.sha256, () => reuse(ctx, files, vouching, found));
    if (kept) return kept;
  } else if (found) {
    // a record of another configuration (URL or sha256): its content file is left to the others
    // that name it, or to the disk budget
    await removeFiles(files.record);
  }
  if (ctx.entry.sha256) {
    // the configured sha256 names a content file that may be stored already (another source's)
    const adopted = await adoptStored(ctx, files, ctx.entry.sha256);
    if (adopted) return adopted;
  }

  await ctx.mayWrite();
  const written = await write(ctx, files);

  ctx.stage('verifying');
  let verified: VerifiedFile;
  try {
    verified = await verifyIso(files.isoPart, { ...verifyOptions(ctx), sha256: written.sha256 });
  } catch (err) {
    if (retryClassOf(err) === 'never') await removeFiles(...partFiles(files));
    throw err;
  }
  return ctx.shared.exclusive(verified.sha256, () => install(ctx, files, verified, written));
}

/**
 * The origin's write of the ISO into the `.part`. A failure loses the `.part` (and its sidecars)
 * as the origin's `discardPartOn` says — a full disk always, then named by the error of
 * src/images/load-failure/disk-full.ts —; a stop of the store keeps it for a later resume.
 */
async function write(ctx: LoadContext, files: CacheFiles): Promise<WrittenIso> {
  const origin = ctx.origin;
  try {
    return await origin.write({
      files,
      label: ctx.label,
      cpuArchitecture: ctx.entry.cpuArchitecture,
      signal: ctx.signal,
      policy: ctx.policy,
      room: { reserve: (bytes) => ctx.reserve(bytes), assertRoom: (bytes) => ctx.assertRoom(bytes) },
      stage: (state, total, already) => ctx.stage(state, total, already),
      advance: (bytes) => ctx.advance(bytes),
      notice: (message, context) => ctx.notice(message, context),
      earlierResolution: ctx.registry,
    });
  } catch (err) {
    const full = ctx.signal.aborted ? undefined : diskFullCode(err);
    const discard =
      origin.discardPartOn === 'any-failure' ||
      full !== undefined ||
      (origin.discardPartOn === 'content-failure' && !ctx.signal.aborted && retryClassOf(err) === 'never');
    if (discard) await removeFiles(...partFiles(files));
    if (full !== undefined) throw diskFullError(err, full, files.isoPart, ctx.label);
    throw err;
  }
}

/**
 * The recorded content file while it matches the record; undefined when it is gone or changed
 * (then quarantined, the record removed): the caller fetches it again.
 */
async function reuse(
  ctx: LoadContext,
  files: CacheFiles,
  vouching: CacheRecord,
  found: CacheRecord | undefined,
): Promise<CacheRecord | undefined> {
  const st = await statIfExists(vouching.iso.path);
  if (st) {
    const compared = await compareWithRecord(vouching.iso, compareOptions(ctx));
    if (compared.verdict === 'same') {
      ctx.reserve(vouching.iso.size + (vouching.minimal?.size ?? 0));
      return keep(ctx, vouching, compared.verified, compared.rewrite || vouching !== found);
    }
    // the recorded sha256 is the truth: the changed file goes, the image is fetched again
    await ctx.mismatch({
      path: vouching.iso.path,
      what: 'ISO',
      reason: compared.reason,
      expectedSha256: vouching.iso.sha256,
      actualSha256: compared.actualSha256,
      inPlace: false,
      bytes: compared.stat?.size ?? vouching.iso.size,
      remedy: 'the image is fetched again',
    });
  }
  // the minimal ISO is recorded in this record only: it goes with it unless another source names it
  const minimal = vouching.minimal?.path;
  await removeFiles(
    files.record,
    ...(minimal !== undefined && !ctx.shared.referencedElsewhere(minimal) ? [minimal] : []),
  );
  return undefined;
}

/** A stored file of the configured sha256 (another source's, or left by an earlier one), recorded as this source's. */
async function adoptStored(ctx: LoadContext, files: CacheFiles, sha256: string): Promise<CacheRecord | undefined> {
  return ctx.shared.exclusive(sha256, async () => {
    const copy = await intactServedCopy(ctx, sha256);
    if (copy) {
      ctx.reserve(copy.size);
      ctx.notice('the configured sha256 is stored and served already: the file is shared, nothing downloaded', {
        file: path.basename(copy.path),
      });
      return record(ctx, files, copy, undefined);
    }
    const target = files.contentIso(sha256);
    const st = await statIfExists(target);
    if (!st) return undefined;
    ctx.reserve(st.size);
    ctx.stage('verifying', st.size);
    try {
      return await record(ctx, files, await verifyIso(target, verifyOptions(ctx)), undefined);
    } catch (err) {
      if (retryClassOf(err) !== 'never') throw err;
      ctx.notice('a stored file named by the configured sha256 failed verification; fetching it again', {
        reason: describeError(err),
      });
      if (!ctx.shared.referencedElsewhere(target)) await removeFiles(target);
      return undefined;
    }
  });
}

/** The verified `.part` in the content store: renamed to sha256-<hex>.iso, or dropped for a copy served already; the origin's leftovers go. */
async function install(
  ctx: LoadContext,
  files: CacheFiles,
  verified: VerifiedFile,
  written: WrittenIso,
): Promise<CacheRecord> {
  const { registry, leftovers } = written;
  const copy = await intactServedCopy(ctx, verified.sha256);
  if (copy) {
    await removeFiles(...partFiles(files), ...leftovers);
    ctx.notice('the fetched ISO is stored and served already (same sha256): the file is shared, the copy dropped', {
      file: path.basename(copy.path),
    });
    return record(ctx, files, copy, registry);
  }
  const target = files.contentIso(verified.sha256);
  const before = await statIfExists(target);
  if (before?.isFile()) {
    // stored already (by a source not served now, another configuration, another process): hashed,
    // and kept when it holds the bytes — its inode, and the records that know it, stay valid
    ctx.stage('verifying', before.size);
    const sha256 = await hashFile(target, ctx.signal, (n) => ctx.advance(n));
    const after = await statIfExists(target);
    if (sha256 === verified.sha256 && after && fileMismatch(withFingerprint(verified, before), after) === undefined) {
      await removeFiles(...partFiles(files), ...leftovers);
      return record(ctx, files, withFingerprint({ ...verified, path: target }, after), registry);
    }
    if (sha256 !== verified.sha256 && !ctx.shared.referencedElsewhere(target)) {
      // named by a sha256 it does not have: corrupted since it was stored; kept aside, never served
      await ctx.mismatch({
        path: target,
        what: 'ISO',
        reason: 'no record vouches for it, and its sha256 differs from its name',
        expectedSha256: verified.sha256,
        actualSha256: sha256,
        inPlace: false,
        bytes: before.size,
        remedy: 'replaced by the verified download',
      });
    }
  }
  // recorded before the rename: a killed process never leaves a cached ISO without its sha256
  const result = await record(ctx, files, { ...verified, path: target }, registry);
  await renameDurably(files.isoPart, target);
  await removeFiles(CacheFiles.partInfo(files.isoPart), CacheFiles.ociState(files.isoPart), ...leftovers);
  // the rename moved the ctime: record the fingerprint of the final file
  result.iso = withFingerprint(result.iso, await stat(target));
  await writeRecord(files.record, result);
  return result;
}

/** Another source's served record of `sha256` whose file still has the recorded stat. */
async function intactServedCopy(ctx: LoadContext, sha256: string): Promise<VerifiedFile | undefined> {
  const copy = ctx.shared.servedCopy(sha256);
  if (!copy) return undefined;
  const st = await statIfExists(copy.path);
  return st && fileMismatch(copy, st) === undefined ? copy : undefined;
}

/**
 * Adopts this source's files of the layout before content keying: the first legacy record that
 * vouches for this source and whose ISO still matches it has its ISO (and minimal ISO) renamed to
 * the content-keyed names and its record rewritten here; copies of the same ISO kept for other
 * openshift_versions are removed (one stored copy). A legacy ISO that no longer matches its
 * record is quarantined. A legacy `.part` is moved to resume. Undefined when nothing was adopted.
 */
async function adoptLegacy(ctx: LoadContext, files: CacheFiles): Promise<CacheRecord | undefined> {
  let adopted: CacheRecord | undefined;
  for (const legacy of ctx.legacy) {
    const old = await readRecord(legacy.record);
    const st = await statIfExists(legacy.iso);
    if (!old || old.inPlace || !st || recordMismatch(old, ctx.entry) !== undefined) continue;
    const iso: VerifiedFile = { ...old.iso, path: legacy.iso };
    if (adopted) {
      if (iso.sha256 === adopted.iso.sha256) {
        await removeFiles(legacy.iso, legacy.minimal, legacy.record);
        ctx.notice('a copy of the same ISO kept for another openshift_version was removed (one stored copy)', {
          file: path.basename(legacy.iso),
        });
      }
      continue;
    }
    const compared = await compareWithRecord(iso, compareOptions(ctx));
    if (compared.verdict !== 'same') {
      await ctx.mismatch({
        path: legacy.iso,
        what: 'ISO',
        reason: compared.reason,
        expectedSha256: iso.sha256,
        actualSha256: compared.actualSha256,
        inPlace: false,
        bytes: st.size,
        remedy: 'not adopted into the content-keyed layout',
      });
      await removeFiles(legacy.minimal, legacy.record);
      continue;
    }
    adopted = await ctx.shared.exclusive(iso.sha256, async () => {
      const target = files.contentIso(iso.sha256);
      if (await statIfExists(target)) {
        await removeFiles(legacy.iso); // stored already under its content name
        const existing = await statIfExists(target);
        if (!existing) return undefined;
        ctx.stage('verifying', existing.size);
        return record(
          ctx,
          files,
          await verifyIso(target, { ...verifyOptions(ctx), expectedSha256: iso.sha256 }),
          old.registry,
        );
      }
      await renameDurably(legacy.iso, target);
      const minimal =
        old.minimal &&
        (await adoptLegacyMinimal(ctx, files, legacy, { ...old.minimal, path: legacy.minimal }, iso.sha256));
      const result: CacheRecord = {
        ...newRecord(
          ctx.entry,
          withFingerprint({ ...compared.verified, path: target }, await stat(target)),
          false,
          ctx.now(),
        ),
        verifiedAt: old.verifiedAt,
        ...(old.lastServedAt ? { lastServedAt: old.lastServedAt } : {}),
        ...(minimal ? { minimal } : {}),
      };
      await writeRecord(files.record, result);
      await removeFiles(legacy.record, legacy.minimal);
      ctx.notice('adopted a cached ISO of the layout before content keying (no download)', {
        from: path.basename(legacy.iso),
        to: path.basename(target),
      });
      return result;
    });
  }
  if (!adopted && !(await statIfExists(files.isoPart))) {
    for (const legacy of ctx.legacy) {
      const part = `${legacy.iso}.part`;
      if (!(await statIfExists(part))) continue;
      await renameDurably(part, files.isoPart);
      await renameDurably(CacheFiles.partInfo(part), CacheFiles.partInfo(files.isoPart)).catch(() => undefined);
      break;
    }
  }
  return adopted;
}

/** The legacy minimal ISO renamed to its content name when it matches its record; undefined otherwise (rebuilt later). */
async function adoptLegacyMinimal(
  ctx: LoadContext,
  files: CacheFiles,
  legacy: LegacyFiles,
  minimal: VerifiedFile,
  fullSha256: string,
): Promise<VerifiedFile | undefined> {
  if (!(await statIfExists(legacy.minimal))) return undefined;
  const compared = await compareWithRecord(minimal, compareOptions(ctx));
  if (compared.verdict !== 'same') return undefined;
  const target = files.contentMinimal(fullSha256);
  if (await statIfExists(target)) return undefined;
  await renameDurably(legacy.minimal, target);
  return withFingerprint({ ...compared.verified, path: target }, await stat(target));
}

/** The `.part` of this source and its sidecars. */
function partFiles(files: CacheFiles): string[] {
  return [files.isoPart, CacheFiles.partInfo(files.isoPart), CacheFiles.ociState(files.isoPart)];
}

/**
 * `record` with its content files' paths in `files.dir`: a record names absolute paths, and a
 * DATA_DIR moved (or restored elsewhere) keeps its files' names. Undefined for a record of a
 * local file used in place.
 */
function relocated(record: CacheRecord, files: CacheFiles): CacheRecord | undefined {
  if (record.inPlace) return undefined;
  const inDir = (p: string) => path.join(files.dir, path.basename(p));
  if (
    record.iso.path === inDir(record.iso.path) &&
    (!record.minimal || record.minimal.path === inDir(record.minimal.path))
  )
    return record;
  return {
    ...record,
    iso: { ...record.iso, path: inDir(record.iso.path) },
    ...(record.minimal ? { minimal: { ...record.minimal, path: inDir(record.minimal.path) } } : {}),
  };
}

async function record(
  ctx: LoadContext,
  files: CacheFiles,
  verified: VerifiedFile,
  registry: RegistryResolution | undefined,
): Promise<CacheRecord> {
  const result: CacheRecord = {
    ...newRecord(
      ctx.entry,
      { ...verified, checkedAt: verified.checkedAt ?? ctx.now().toISOString() },
      false,
      ctx.now(),
    ),
    ...(registry ? { registry } : {}),
  };
  await writeRecord(files.record, result);
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
    cpuArchitecture: ctx.entry.cpuArchitecture,
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
