// The content-keyed files several configured sources may share (src/images/cache/cache-layout.ts):
// which source serves which file, and one work at a time per content file.
//
// Does: answer, from the slots' records, whether another source serves a verified file of a
// sha256 (so a fetched or configured ISO is not stored twice), whether a file is named by another
// source's record (so it is not removed under it), which slots serve a file (an integrity doubt
// about it holds them all); serialise the works on one content file (installs, comparisons,
// minimal builds: two sources never rename over or compare one file at the same time).
// Does NOT: touch the disk, load, evict or publish.
import type { VerifiedFile } from '../cache/cache-record.js';
import type { ImageSlot } from './image-slot.js';

/** What a load may know of the other sources' content files. */
export interface SharedFiles {
  /** The record of the file of `sha256` another source serves now (verified, ready), if any. */
  servedCopy(sha256: string): VerifiedFile | undefined;
  /** Whether another source's record names `file`. */
  referencedElsewhere(file: string): boolean;
  /** Runs `work` alone among the works given the same key (a content file's sha256). */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export class SharedContent {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(private readonly slots: readonly ImageSlot[]) {}

  /** The view of the others one slot's load gets. */
  for(slot: ImageSlot): SharedFiles {
    return {
      servedCopy: (sha256) => this.servedCopy(sha256, slot),
      referencedElsewhere: (file) => this.referencedBy(file, slot).length > 0,
      exclusive: (key, work) => this.exclusive(key, work),
    };
  }

  /** The record of a verified, served full ISO of `sha256` held by a slot other than `except`. */
  servedCopy(sha256: string, except?: ImageSlot): VerifiedFile | undefined {
    for (const s of this.slots) {
      const status = s.view.status;
      if (s === except || status.state !== 'ready' || status.image.unverified || !s.record || s.record.inPlace)
        continue;
      if (s.record.iso.sha256 === sha256 && status.image.base.path === s.record.iso.path) return s.record.iso;
    }
    return undefined;
  }

  /** The record of a served minimal ISO built from the full ISO `fullSha256`, held by a slot other than `except`. */
  servedMinimal(fullSha256: string, except: ImageSlot): VerifiedFile | undefined {
    for (const s of this.slots) {
      const status = s.view.status;
      if (s === except || status.state !== 'ready' || !status.image.minimal || !s.record?.minimal) continue;
      if (s.record.iso.sha256 === fullSha256 && !s.record.inPlace) return s.record.minimal;
    }
    return undefined;
  }

  /** Slots other than `except` whose record names `file` (as full or minimal ISO). */
  referencedBy(file: string, except?: ImageSlot): ImageSlot[] {
    return this.slots.filter(
      (s) => s !== except && s.record !== undefined && (s.record.iso.path === file || s.record.minimal?.path === file),
    );
  }

  /** Runs `work` after every earlier work given `key` settled; the next waits for this one. */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }
}
