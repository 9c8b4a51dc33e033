// Adopting a cache of the layout before content keying (<openshift_version>-<arch>-<hash>.iso,
// .minimal.iso and .json): the first legacy record that vouches for this source and whose ISO
// still matches it has its files renamed to their content-keyed names and its record written
// again as this source's — no download; copies of the same ISO kept for other openshift_versions
// are removed (one stored copy), a legacy ISO that no longer matches its record is quarantined,
// and a legacy `.part` is moved to resume.
// Does NOT: fetch or verify a new ISO (src/images/loader/obtain-iso.ts, install-iso.ts).
// Next: src/images/loader/compare-with-record.ts.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { removeFiles, renameDurably, statIfExists } from '../../fs/atomic-file.js';
import { CacheFiles, type LegacyFiles } from '../cache/cache-layout.js';
import {
  type CacheRecord,
  type VerifiedFile,
  newRecord,
  readRecord,
  recordMismatch,
  withFingerprint,
  writeRecord,
} from '../cache/cache-record.js';
import { verifyIso } from '../fetch/verify-iso.js';
import { compareWithRecord } from './compare-with-record.js';
import { record } from './install-iso.js';
import { type LoadContext, compareOptions, verifyOptions } from './load-context.js';

/**
 * Adopts this source's files of the layout before content keying: the first legacy record that
 * vouches for this source and whose ISO still matches it has its ISO (and minimal ISO) renamed to
 * the content-keyed names and its record rewritten here; copies of the same ISO kept for other
 * openshift_versions are removed (one stored copy). A legacy ISO that no longer matches its
 * record is quarantined. A legacy `.part` is moved to resume. Undefined when nothing was adopted.
 */
export async function adoptLegacy(ctx: LoadContext, files: CacheFiles): Promise<CacheRecord | undefined> {
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
