// The quarantine of the image cache, `DATA_DIR/images/quarantine/`: where a cached file that
// failed its integrity check goes instead of being served or silently deleted. It is renamed
// there (same filesystem: no bytes copied, no space needed) as `<file name>.<UTC stamp>`, next to
// a note `<file name>.<UTC stamp>.json` saying which image it belonged to, why it was taken out
// and both digests, so an operator can inspect what changed. At most `keep` files are kept,
// the oldest removed first; `keep` 0 deletes the file at once instead.
//
// Does: move, note, prune, list (for the disk budget, which removes quarantined files first when
// it needs room, as it does files of images no longer configured).
// Does NOT: decide that a file is corrupt (src/images/loader/compare-with-record.ts) or log.
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { removeFiles, renameDurably, writeFileAtomic } from '../../fs/atomic-file.js';

export const QUARANTINE_DIR_NAME = 'quarantine';

/** Upper bound of IMAGE_QUARANTINE_KEEP: each quarantined file may be a whole ISO. */
export const MAX_QUARANTINE_KEEP = 100;

export interface QuarantineNote {
  /** The image the file belonged to, e.g. `4.17/x86_64`. */
  image: string;
  reason: string;
  expectedSha256?: string;
  actualSha256?: string;
}

export interface QuarantinedFile {
  /** Relative to the images directory, e.g. `quarantine/4.17-x86_64-….iso.2026-…Z`. */
  file: string;
  bytes: number;
}

export class Quarantine {
  readonly dir: string;

  constructor(
    readonly imagesDir: string,
    readonly keep: number,
  ) {
    this.dir = path.join(imagesDir, QUARANTINE_DIR_NAME);
  }

  /**
   * Moves `file` (inside the images directory) aside with its note; returns where it went,
   * relative to the images directory, or undefined when `keep` is 0 and it was deleted.
   */
  async put(file: string, note: QuarantineNote, now: Date): Promise<string | undefined> {
    if (this.keep === 0) {
      await removeFiles(file);
      return undefined;
    }
    await mkdir(this.dir, { recursive: true });
    const name = `${path.basename(file)}.${now.toISOString().replace(/[:.]/g, '-')}`;
    const target = path.join(this.dir, name);
    const body = { quarantinedAt: now.toISOString(), file: path.basename(file), ...note };
    await writeFileAtomic(`${target}.json`, `${JSON.stringify(body, null, 2)}\n`);
    await renameDurably(file, target);
    await this.prune();
    return path.join(QUARANTINE_DIR_NAME, name);
  }

  /** Every file in the quarantine (notes included), relative to the images directory. */
  async list(): Promise<QuarantinedFile[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const files: QuarantinedFile[] = [];
    for (const name of names) {
      const st = await stat(path.join(this.dir, name)).catch(() => undefined);
      if (st?.isFile()) files.push({ file: path.join(QUARANTINE_DIR_NAME, name), bytes: st.size });
    }
    return files;
  }

  /** Removes the oldest quarantined files (and their notes) beyond `keep`. */
  private async prune(): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const kept = names.filter((n) => !n.endsWith('.json')).sort((a, b) => stampOf(a).localeCompare(stampOf(b)));
    const excess = kept.slice(0, Math.max(0, kept.length - this.keep));
    await removeFiles(...excess.flatMap((n) => [path.join(this.dir, n), path.join(this.dir, `${n}.json`)]));
  }
}

/** The UTC stamp `put` appended (sorts in time order). */
function stampOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
