// The install of a written ISO into the content-keyed cache, the same for every origin
// (src/images/origins/image-origin.ts): verify the `.part` (its sha256 against the configured one,
// the CoreOS layout: src/images/fetch/verify-iso.ts; wrong bytes delete it), deduplicate by
// sha256 (a copy another source serves, or a stored file that still holds those bytes, is shared
// and the `.part` dropped), record, then rename it durably to sha256-<hex>.iso (the writers fsync
// the `.part`; the rename is made durable) and remove the origin's leftovers. The record is
// written before the rename, so a killed process never leaves a cached ISO without its sha256;
// a stored file whose bytes do not hash to its name is quarantined. Also: recording a stored file
// of the configured sha256 as this source's without writing anything (adoptStored).
// Does NOT: ask an origin for bytes or clean up after a failed write (src/images/loader/obtain-iso.ts),
// or reuse a recorded file (obtain-iso.ts compares it with its record).
// Next: src/images/loader/adopt-legacy.ts.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../../errors.js';
import { removeFiles, renameDurably, statIfExists } from '../../fs/atomic-file.js';
import { CacheFiles } from '../cache/cache-layout.js';
import {
  type CacheRecord,
  type RegistryResolution,
  type VerifiedFile,
  fileMismatch,
  newRecord,
  withFingerprint,
  writeRecord,
} from '../cache/cache-record.js';
import { hashFile, verifyIso } from '../fetch/verify-iso.js';
import { retryClassOf } from '../load-failure/retry-policy.js';
import type { WrittenIso } from '../origins/image-origin.js';
import { type LoadContext, verifyOptions } from './load-context.js';

/** Verifies what an origin wrote into the `.part` and installs it (one install of a sha256 at a time). */
export async function installWritten(ctx: LoadContext, files: CacheFiles, written: WrittenIso): Promise<CacheRecord> {
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

/** A stored file of the configured sha256 (another source's, or left by an earlier one), recorded as this source's. */
export async function adoptStored(
  ctx: LoadContext,
  files: CacheFiles,
  sha256: string,
): Promise<CacheRecord | undefined> {
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

/** The `.part` of this source and its sidecars. */
export function partFiles(files: CacheFiles): string[] {
  return [files.isoPart, CacheFiles.partInfo(files.isoPart), CacheFiles.ociState(files.isoPart)];
}

export async function record(
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
