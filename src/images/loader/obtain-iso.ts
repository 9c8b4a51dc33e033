// Getting one configured source to a verified file with a persisted record — the store's
// pipeline for a single source (one or more OS_IMAGES entries naming it), the same for every
// origin (src/images/origins/image-origin.ts: a local file, a block device, HTTP(S), S3, a zip, a
// registry). In order:
//
//   in place     an origin whose ISO may be used where it lies (a local regular file), when no
//                cached copy of this source is recorded: reused while it matches its record
//                (src/images/loader/compare-with-record.ts); when its content changed, the local
//                source is the truth: it is verified again (sha256 if configured, CoreOS layout)
//                and recorded with its new sha256, and the change is reported, never moved
//   reuse        the content file the record names, while it matches the record; a file whose
//                content no longer matches the recorded sha256 is quarantined and the image
//                written again. A cache of the layout before content keying is adopted without a
//                download (src/images/loader/adopt-legacy.ts)
//   adopt        an entry with a configured sha256 adopts a stored file of that sha256 (hashed
//                first) without writing (src/images/loader/install-iso.ts)
//   write        once the write gate opens (the embedded database starts first), the origin writes
//                the ISO into <source>.iso.part, resuming what an earlier attempt left where it
//                can; origins ask the disk budget and the free-space reserve before their first byte
//   install      verified, deduplicated by sha256, recorded, renamed to sha256-<hex>.iso
//                (src/images/loader/install-iso.ts, the same for every origin)
//
// A failed write loses its .part as its origin says (ImageOrigin.discardPartOn, applied here once
// for all: wrong bytes and a full disk delete it, transient faults keep it to resume, a copy that
// cannot resume loses it always); a full disk becomes the error naming the disk
// (src/images/load-failure/disk-full.ts). Only a renamed, verified file is ever handed back, so a
// killed process never leaves a file that gets served. Installs and comparisons of one content
// file run one at a time (ctx.shared.exclusive).
// Does: the order above, and the failure cleanup of a write. Does NOT: know any origin's
// protocol, open or serve the file, schedule retries (src/images/loader/image-loader.ts), or
// decide about the disk budget (src/images/cache/cache-budget.ts).
// Next: src/images/loader/install-iso.ts.
import path from 'node:path';
import { removeFiles, statIfExists } from '../../fs/atomic-file.js';
import type { CacheFiles } from '../cache/cache-layout.js';
import {
  type CacheRecord,
  MANIFEST_FORMAT_VERSION,
  type VerifiedFile,
  newRecord,
  readRecord,
  recordMismatch,
  writeRecord,
} from '../cache/cache-record.js';
import { parseAsLiveIso, verifyIso } from '../fetch/verify-iso.js';
import { diskFullCode, diskFullError } from '../load-failure/disk-full.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { type WrittenIso, losesPart } from '../origins/image-origin.js';
import { adoptLegacy } from './adopt-legacy.js';
import { compareWithRecord } from './compare-with-record.js';
import { adoptStored, installWritten, partFiles } from './install-iso.js';
import { type LoadContext, compareOptions, verifyOptions } from './load-context.js';

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
  return installWritten(ctx, files, await writeFromOrigin(ctx, files));
}

/**
 * The origin's write of the ISO into the `.part`. A failure loses the `.part` (and its sidecars)
 * as the origin's `discardPartOn` says — a full disk always, then named by the error of
 * src/images/load-failure/disk-full.ts —; a stop of the store keeps it for a later resume.
 */
async function writeFromOrigin(ctx: LoadContext, files: CacheFiles): Promise<WrittenIso> {
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
    if (losesPart(origin.discardPartOn, err, ctx.signal.aborted)) await removeFiles(...partFiles(files));
    const full = ctx.signal.aborted ? undefined : diskFullCode(err);
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

function requireFiles(ctx: LoadContext): CacheFiles {
  if (ctx.files) return ctx.files;
  throw new ImageLoadError(
    'internal',
    `${ctx.label}: downloading or unpacking an image needs a cache directory (DATA_DIR)`,
    'never',
  );
}
