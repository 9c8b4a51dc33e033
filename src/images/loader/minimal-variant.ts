// Making the minimal variant of a ready full image: rebuild it from coreos/miniso.dat once
// (src/images/loader/rebuild-minimal-iso.ts, which checks the sha256 recorded in miniso.dat) into
// `sha256-<full ISO's hex>.minimal.iso.part`, verify it as a CoreOS live ISO, then fsync and
// rename it to `sha256-<full ISO's hex>.minimal.iso` (content-keyed: every source of that full
// ISO shares it), whose record then carries the final file's fingerprint.
//
// Every failure (a corrupt miniso.dat, a sha256 mismatch inside it, a result that does not
// parse) is the minimal variant's alone: the caller keeps serving the full image.
// It does not decide when to build or record anything.
import { stat } from 'node:fs/promises';
import { describeError } from '../../errors.js';
import { fsyncPath, removeFiles, renameDurably } from '../../fs/atomic-file.js';
import { type VerifiedFile, withFingerprint } from '../cache/cache-record.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { verifyIso } from '../fetch/verify-iso.js';
import type { RebuildMinimalIso } from './rebuild-minimal-iso.js';

export async function buildMinimalVariant(
  full: VerifiedFile,
  /** The minimal ISO's final path; it is built into `<path>.part`. */
  minimalPath: string,
  rebuild: RebuildMinimalIso,
  label: string,
  signal: AbortSignal,
): Promise<VerifiedFile> {
  const files = { minimal: minimalPath, minimalPart: `${minimalPath}.part` };
  await removeFiles(files.minimalPart);
  try {
    let sha256: string;
    try {
      ({ sha256 } = await rebuild(full.path, full.manifest, files.minimalPart, signal));
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (err instanceof ImageLoadError) throw err;
      throw new ImageLoadError(
        'format',
        `rebuilding the minimal ISO: ${describeError(err)}`,
        'never',
        {},
        { cause: err },
      );
    }
    const verified = await verifyIso(files.minimalPart, { label: `${label} minimal ISO`, signal, sha256 });
    await fsyncPath(files.minimalPart);
    await renameDurably(files.minimalPart, files.minimal);
    // the fingerprint of the final file (the rename moved its ctime); its content was just hashed
    const final = withFingerprint({ ...verified, path: files.minimal }, await stat(files.minimal));
    return { ...final, checkedAt: new Date().toISOString() };
  } catch (err) {
    await removeFiles(files.minimalPart);
    throw err;
  }
}
