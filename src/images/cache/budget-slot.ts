// What the disk budget (src/images/cache/cache-budget.ts) reads and writes of one configured
// source: a narrow view of the loader's slot (src/images/loader/image-slot.ts implements it), so
// the budget depends on these few fields and not on the loader.
//
// Does: declare the interface. Does NOT: hold any state or behaviour of its own.
// Next: src/images/cache/cache-budget.ts.
import type { CatalogSlot } from '../catalog/store-catalog.js';
import type { CacheFiles, LegacyFiles } from './cache-layout.js';
import type { CacheRecord } from './cache-record.js';

export interface BudgetSlot {
  /** The read-side state: label and key for messages, the status (only ready images are evicted), when last served. */
  readonly view: CatalogSlot;
  /** The source's files; undefined without a cache directory. */
  readonly files: CacheFiles | undefined;
  /** The source's files in the layout before content keying (its own until it has a record). */
  readonly legacy: readonly LegacyFiles[];
  /** The verified record: the content files it names. */
  readonly record: CacheRecord | undefined;
  /** The load running now, if any: its file is not evicted under it. */
  readonly job: Promise<void> | undefined;
  /** When the image became ready (its eviction order until it is served). */
  readonly readyAt: number;
  /** Bytes this image holds (or will hold) in the cache; 0 for images used in place. */
  diskBytes: number;
  /** The size the last reservation asked for, to refuse an on-demand fetch without asking the remote. */
  expectedBytes: number | undefined;
  /** Pending unlinks of an eviction; a new load waits for them. */
  removal: Promise<void> | undefined;
  /** Forgets the verified record and what the catalog reports of it: its files are being removed. */
  forgetRecord(): void;
}
