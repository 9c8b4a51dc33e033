// Getting one configured source to a verified file with a persisted record — the store's
// pipeline for a single source (one or more OS_IMAGES entries naming it), whatever its origin:
//
//   local ISO      used in place; reused while it matches its record
//                  (src/images/loader/compare-with-record.ts); when its content changed, the
//                  local source is the truth: it is verified again (sha256 if configured, CoreOS
//                  layout) and recorded with its new sha256, and the change is reported, never moved
//   block device   (a loop device, a disk an ISO was written to: src/images/fetch/local-image.ts)
//                  its ISO volume copied into <source>.iso.part, hashed on the way, then as a
//                  remote ISO (the copy is what is served and checked)
//   remote ISO     the content file its record names is reused while it matches the record; a
//                  file whose content no longer matches the recorded sha256 is quarantined and
//                  the image fetched again; else downloaded into <source>.iso.part (resumable),
//                  verified, recorded, fsynced and renamed to sha256-<hex>.iso
//   zip (local or remote)  the zip (downloaded into <source>.zip.part → <source>.zip) has its
//                  single ISO extracted into <source>.iso.part, then as a remote ISO; the zip is
//                  removed
//   registry       pulled by src/images/fetch/oci/oci-pull.ts into <source>.iso.part (a raw blob
//                  resumes after a restart); the pull resolves only once the layer digest, the
//                  ISO's sha256 and a release payload's .iso.sha256 were verified, and nothing of
//                  it is served before (never served while downloading); then as a remote ISO.
//                  A tag is resolved once: later pulls (after an eviction) ask for the digest
//
// Files are content-keyed (src/images/cache/cache-layout.ts): a verified ISO whose sha256 another
// source already stores and serves is not stored twice — the .part is dropped and the record
// names the existing file. An entry with a configured sha256 adopts a stored file of that sha256
// (hashed first) without downloading. Installs and comparisons of one content file run one at a
// time (ctx.shared.exclusive). A cache of the layout before content keying
// (<openshift_version>-<arch>-<hash>.iso and .json) is adopted in place: compared with its record,
// renamed, recorded again — no download.
//
// Only a renamed, verified file is ever handed back, so a killed process never leaves a file
// that gets served; its record is written before the rename, so no cached ISO lacks one. Content
// failures delete the .part (resuming bad bytes cannot help); transient ones keep it; a full
// disk deletes it (src/images/load-failure/disk-full.ts), and a download or extraction of known size that
// would leave less than IMAGE_DISK_RESERVE_BYTES free is refused before it writes. Writes wait
// for the write gate (the embedded database starts first). It reports stages and bytes through
// LoadContext and leaves opening, serving and retry scheduling to the loader
// (src/images/loader/image-loader.ts) and the disk budget to src/images/cache/cache-budget.ts.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { describeError } from '../../errors.js';
import { fsyncPath, removeFiles, renameDurably, statIfExists } from '../../fs/atomic-file.js';
import { openPartFile } from '../../fs/part-file.js';
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
import { diskFullCode, diskFullError } from '../load-failure/disk-full.js';
import { downloadToFile } from '../fetch/download.js';
import type { WorkingState } from '../catalog/image-status.js';
import { compareWithRecord } from './compare-with-record.js';
import type { FileMismatch } from './integrity-report.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import type { OsImageEntry } from '../os-images-config.js';
import { type RetryPolicy, retryClassOf } from '../load-failure/retry-policy.js';
import type { ImageOrigin } from '../origins/origin-of.js';
import { type OciSource, pullOciIso } from '../fetch/oci/oci-pull.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import { localImage, localImageSize } from '../fetch/local-image.js';
import { hashFile, parseAsLiveIso, verifyIso } from '../fetch/verify-iso.js';
import { extractSingleIso } from '../fetch/zip-extract.js';

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
  if (ctx.origin.kind === 'local' && !ctx.origin.zip) {
    const path = ctx.origin.path;
    // the copy of a block device is reused without reading the device again
    const device = async () => {
      const local = await localImage(path, ctx.label);
      if (local.kind !== 'device')
        throw new ImageLoadError('upstream', `${ctx.label}: ${path} is no longer a block device`, 'slow', { path });
      return { path, size: local.size };
    };
    if (existing && !existing.inPlace && recordMismatch(existing, ctx.entry) === undefined)
      return cached(ctx, requireFiles(ctx), existing, device);
    const local = await localImage(path, ctx.label);
    if (local.kind === 'file') return inPlace(ctx, path, existing, local.size);
    return cached(ctx, requireFiles(ctx), existing, device);
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

async function cached(
  ctx: LoadContext,
  files: CacheFiles,
  found: CacheRecord | undefined,
  /** The block device to copy the ISO from (looked at only when a copy is needed). */
  device?: () => Promise<{ path: string; size: number }>,
): Promise<CacheRecord> {
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
  let fetched: { sha256: string; size: number; registry?: RegistryResolution };
  if (device) {
    fetched = await copyDevice(ctx, await device(), files);
  } else if (ctx.origin.kind === 'registry') {
    fetched = await pull(ctx, ctx.origin, files);
  } else if (ctx.origin.kind === 'local' || ctx.origin.zip) {
    const zip = ctx.origin.kind === 'local' ? ctx.origin.path : await fetchZip(ctx, ctx.origin.source, files);
    if (ctx.origin.kind === 'local') await localImageSize(zip, ctx.label);
    fetched = await extract(ctx, zip, files);
  } else {
    fetched = await download(ctx, ctx.origin.source, files.isoPart);
  }

  ctx.stage('verifying');
  let verified: VerifiedFile;
  try {
    verified = await verifyIso(files.isoPart, { ...verifyOptions(ctx), sha256: fetched.sha256 });
  } catch (err) {
    if (retryClassOf(err) === 'never') await removeFiles(...partFiles(files));
    throw err;
  }
  return ctx.shared.exclusive(verified.sha256, () => install(ctx, files, verified, fetched.registry));
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

/** The verified `.part` in the content store: renamed to sha256-<hex>.iso, or dropped for a copy served already. */
async function install(
  ctx: LoadContext,
  files: CacheFiles,
  verified: VerifiedFile,
  registry: RegistryResolution | undefined,
): Promise<CacheRecord> {
  const copy = await intactServedCopy(ctx, verified.sha256);
  if (copy) {
    await removeFiles(...partFiles(files), files.zip);
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
      await removeFiles(...partFiles(files), files.zip);
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
  await removeFiles(CacheFiles.partInfo(files.isoPart), CacheFiles.ociState(files.isoPart), files.zip);
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

/** Copies the ISO volume of a block device into the `.part`, hashing it on the way. */
async function copyDevice(
  ctx: LoadContext,
  device: { path: string; size: number },
  files: CacheFiles,
): Promise<{ sha256: string; size: number }> {
  ctx.reserve(device.size);
  ctx.assertRoom(device.size);
  ctx.stage('extracting', device.size);
  const hash = createHash('sha256');
  let copied = 0;
  try {
    const out = await openPartFile(files.isoPart, { resume: false });
    await pipeline(
      createReadStream(device.path, { start: 0, end: device.size - 1, highWaterMark: 1024 * 1024 }),
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          copied += chunk.length;
          ctx.advance(chunk.length);
          done(null, chunk);
        },
      }),
      createWriteStream('', { fd: out }),
      { signal: ctx.signal },
    );
    if (copied !== device.size)
      throw new ImageLoadError(
        'upstream',
        `${ctx.label}: ${device.path} ended after ${copied} of the ${device.size} bytes of its ISO volume`,
        'slow',
        { path: device.path },
      );
    await fsyncPath(files.isoPart);
  } catch (err) {
    await removeFiles(...partFiles(files));
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const full = diskFullCode(err);
    if (full !== undefined) throw diskFullError(err, full, files.isoPart, ctx.label);
    if (err instanceof ImageLoadError) throw err;
    throw new ImageLoadError(
      'upstream',
      `${ctx.label}: reading ${device.path}: ${describeError(err)}`,
      'slow',
      { path: device.path },
      { cause: err },
    );
  }
  return { sha256: hash.digest('hex'), size: device.size };
}

/**
 * Pulls a registry source into the `.part` (oci-pull.ts): by the digest an earlier pull resolved
 * a tag to, when known. Resolves only once everything was verified.
 */
async function pull(
  ctx: LoadContext,
  origin: Extract<ImageOrigin, { kind: 'registry' }>,
  files: CacheFiles,
): Promise<{ sha256: string; size: number; registry: RegistryResolution }> {
  const source: OciSource =
    ctx.registry === undefined
      ? origin.source
      : origin.source.kind === 'image'
        ? { kind: 'image', reference: ctx.registry.resolved }
        : { kind: 'release', releaseImage: ctx.registry.resolved };
  try {
    const result = await pullOciIso(
      {
        source,
        cpuArchitecture: ctx.entry.cpuArchitecture,
        partPath: files.isoPart,
        signal: ctx.signal,
        onStart: (size, already) => {
          if (size !== undefined) {
            ctx.reserve(size);
            ctx.assertRoom(size - already);
          }
          ctx.stage('downloading', size, already);
        },
        onBytes: (n) => ctx.advance(n),
        onNotice: (message, context) => ctx.notice(message, context),
      },
      origin.settings,
    );
    return {
      sha256: result.sha256,
      size: result.size,
      registry: {
        // the configured reference pinned (a pull by an earlier resolution keeps that one)
        resolved: ctx.registry?.resolved ?? result.resolved,
        pulledFrom: result.pulledFrom,
        manifestDigest: result.manifestDigest,
        layerDigest: result.layerDigest,
        ...(result.machineOsImages !== undefined ? { machineOsImages: result.machineOsImages } : {}),
      },
    };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const full = diskFullCode(err);
    if (full !== undefined) {
      await removeFiles(...partFiles(files));
      throw diskFullError(err, full, files.isoPart, ctx.label);
    }
    // wrong bytes never get better: nothing unverified is kept (a transient failure keeps the .part to resume)
    if (retryClassOf(err) === 'never') await removeFiles(...partFiles(files));
    throw err;
  }
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
