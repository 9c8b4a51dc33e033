// The image store as the serving path, /health and the CLI see it: three methods, the model
// being assisted-image-service's `ImageStore` handed to its handlers.
//
// Does: declare the read-side contract (look an image up, report every image's state, follow
// changes). Does NOT: load, cache, evict or persist anything; that is the write side
// (src/images/loader/, src/images/cache/cache-budget.ts). Types only.
import type { ImageHealth } from './image-status.js';
import type { LiveImage } from './live-image.js';

export interface StoreHealth {
  /** At least one image is ready. */
  ready: boolean;
  images: ImageHealth[];
  /** Problems found in the OS image configuration. */
  problems: readonly string[];
}

export interface ImageStore {
  /**
   * The ready image for `version` and `arch` (default x86_64), recorded as served. Throws
   * BadRequestError for a missing version or unknown architecture name, NotFoundError when
   * nothing is configured for them, UnavailableError (503 + Retry-After) while the image is
   * loading, evicted (its fetch is requested) or failed.
   */
  resolve(version: string | undefined, arch: string | undefined): LiveImage;
  health(): StoreHealth;
  /** Calls `listener` after state changes and (throttled) progress; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}
