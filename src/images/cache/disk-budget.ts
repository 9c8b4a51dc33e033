// Choosing what to evict to keep the image cache within IMAGE_CACHE_MAX_BYTES: the least
// recently served candidates first, skipping any served (or made ready) within `minIdleMs`
// so that images in active use are never thrown out to make room for others. Evicts
// nothing when even evicting every eligible candidate would not make enough room.
// Pure; the cache budget (src/images/cache/cache-budget.ts) supplies the candidates (re-fetchable cached images, unreferenced files)
// and carries the plan out.

export interface BudgetCandidate {
  id: string;
  bytes: number;
  /** Last time it was served or became ready (ms since epoch); 0 for unreferenced files. */
  lastUsedAt: number;
}

export interface EvictionPlan {
  fits: boolean;
  /** In eviction order; empty when nothing needs to (or can usefully) go. */
  victims: string[];
  /** Bytes still missing when `fits` is false. */
  shortBy: number;
}

export function planEviction(
  candidates: readonly BudgetCandidate[],
  usedBytes: number,
  neededBytes: number,
  maxBytes: number,
  now: number,
  minIdleMs: number,
): EvictionPlan {
  let free = maxBytes - usedBytes;
  if (free >= neededBytes) return { fits: true, victims: [], shortBy: 0 };
  const eligible = candidates
    .filter((c) => now - c.lastUsedAt >= minIdleMs)
    .sort((a, b) => a.lastUsedAt - b.lastUsedAt);
  const victims: string[] = [];
  for (const candidate of eligible) {
    if (free >= neededBytes) break;
    victims.push(candidate.id);
    free += candidate.bytes;
  }
  if (free < neededBytes) return { fits: false, victims: [], shortBy: neededBytes - free };
  return { fits: true, victims, shortBy: 0 };
}
