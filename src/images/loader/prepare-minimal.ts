// The write side's step after a full image is published: open the minimal variant, building it
// once (src/images/loader/minimal-variant.ts) when the cache has none that still matches, and
// publish it into the catalog beside the full ISO.
//
// Does: reuse a recorded minimal ISO that still matches its record
// (src/images/loader/compare-with-record.ts; re-parsing it when the manifest format moved on),
// quarantine one whose sha256 changed and build it again, reserve its bytes in the cache budget,
// record it, publish the variant's state. The minimal ISO is content-keyed by its full ISO: a
// source sharing the full ISO with another that serves its minimal ISO takes that one, and builds
// of one minimal ISO run one at a time. Building waits for the write gate. Every failure is the
// variant's alone: the full ISO keeps being served.
// Does NOT: decide when to run (the loader calls it after publishing), or retry.
import path from 'node:path';
import type { Logger } from 'pino';
import { describeError } from '../../errors.js';
import { BaseFile } from '../../splice/base-file.js';
import { removeFiles } from '../../fs/atomic-file.js';
import { MANIFEST_FORMAT_VERSION, type VerifiedFile, writeRecord } from '../cache/cache-record.js';
import type { MinimalState } from '../catalog/live-image.js';
import type { StoreCatalog } from '../catalog/store-catalog.js';
import { parseAsLiveIso } from '../fetch/verify-iso.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { compareWithRecord } from './compare-with-record.js';
import type { ImageSlot } from './image-slot.js';
import { type IntegrityDeps, fenceOf, reportMismatch } from './integrity-report.js';
import { untilAllowed } from './load-context.js';
import { contentDate } from './content-date.js';
import type { RebuildMinimalIso } from './rebuild-minimal-iso.js';
import { buildMinimalVariant } from './minimal-variant.js';
import type { SharedContent } from './shared-content.js';

export interface MinimalDeps extends IntegrityDeps {
  catalog: StoreCatalog;
  logger: Logger;
  rebuild: RebuildMinimalIso;
  signal: AbortSignal;
  /** Resolves once writing into the cache may start. */
  writesAllowed: Promise<void>;
  /** A read found the served minimal ISO changed (its fence): the loader holds the image. */
  changedWhileServed(slot: ImageSlot, base: BaseFile | undefined, reason: string): void;
  shared: SharedContent;
}

/** Opens (or builds once) the minimal ISO of a ready image; failures stay the variant's own. */
export async function prepareMinimal(slot: ImageSlot, deps: MinimalDeps): Promise<void> {
  const record = slot.record;
  const view = slot.view;
  if (view.status.state !== 'ready' || !record?.iso.manifest.files.minisoData) return;
  try {
    let minimal = record.minimal && (await reusableMinimal(slot, record.minimal, deps));
    if (!minimal) {
      const files = slot.files;
      if (!files) throw new ImageLoadError('internal', 'minimal ISOs need a cache directory (DATA_DIR)', 'never');
      minimal = await deps.shared.exclusive(`minimal:${record.iso.sha256}`, async () => {
        const served = deps.shared.servedMinimal(record.iso.sha256, slot);
        if (served) return served; // another source of the same full ISO built it
        await untilAllowed(deps.writesAllowed, deps.signal);
        setMinimal(slot, deps.catalog, { state: 'building' });
        const started = Date.now();
        const target = files.contentMinimal(record.iso.sha256);
        const built = await buildMinimalVariant(record.iso, target, deps.rebuild, view.label, deps.signal);
        try {
          deps.budget.reserve(slot, (record.inPlace ? 0 : record.iso.size) + built.size);
        } catch (err) {
          if (deps.shared.referencedBy(target, slot).length === 0) await removeFiles(target);
          throw err;
        }
        deps.logger.info(
          { image: view.key, path: built.path, size: built.size, ms: Date.now() - started },
          'minimal ISO rebuilt',
        );
        return built;
      });
    }
    if (record.minimal !== minimal) {
      record.minimal = minimal;
      if (slot.files) await writeRecord(slot.files.record, record);
    }
    const { fence, opened } = fenceOf(minimal, (served, why) =>
      deps.changedWhileServed(slot, served, `the minimal ISO ${path.basename(minimal.path)}: ${why}`),
    );
    const base = opened(
      await BaseFile.open(minimal.path, `sha256:${minimal.sha256}`, await contentDate(minimal.path), fence),
    );
    // re-read: the image may have been evicted or reloaded while this ran
    const status = slot.view.status;
    if (status.state !== 'ready' || slot.record !== record) {
      base.close();
      return;
    }
    deps.catalog.setStatus(view, {
      state: 'ready',
      image: { ...status.image, minimal: { base, manifest: minimal.manifest }, minimalState: { state: 'ready' } },
    });
  } catch (err) {
    if (deps.signal.aborted) return;
    const reason = describeError(err);
    if (record.minimal) {
      delete record.minimal;
      slot.diskBytes = record.inPlace ? 0 : record.iso.size;
    }
    setMinimal(slot, deps.catalog, { state: 'failed', reason });
    deps.logger.warn({ image: view.key, reason }, 'minimal ISO unavailable; the full ISO is still served');
  }
}

/**
 * The recorded minimal ISO while it matches its record (re-parsed if the manifest format moved
 * on); undefined when it is gone or its sha256 changed (then quarantined): it is built again.
 */
async function reusableMinimal(
  slot: ImageSlot,
  minimal: VerifiedFile,
  deps: MinimalDeps,
): Promise<VerifiedFile | undefined> {
  const compared = await compareWithRecord(minimal, {
    distrusted: slot.distrusted,
    signal: deps.signal,
    now: new Date(),
  });
  if (compared.verdict === 'changed') {
    if (compared.stat) {
      const mismatch = {
        path: minimal.path,
        what: 'minimal ISO',
        reason: compared.reason,
        expectedSha256: minimal.sha256,
        actualSha256: compared.actualSha256,
        inPlace: false,
        bytes: compared.stat.size,
        remedy: 'it is built again from the full ISO',
      };
      await reportMismatch(slot, mismatch, deps, new Date());
    }
    return undefined;
  }
  if (compared.verified.manifest.formatVersion === MANIFEST_FORMAT_VERSION) return compared.verified;
  const label = `${slot.view.label} minimal ISO`;
  return { ...compared.verified, manifest: await parseAsLiveIso(minimal.path, label) };
}

function setMinimal(slot: ImageSlot, catalog: StoreCatalog, minimalState: MinimalState): void {
  const status = slot.view.status;
  if (status.state !== 'ready') return;
  catalog.setStatus(slot.view, { state: 'ready', image: { ...status.image, minimalState } });
}
