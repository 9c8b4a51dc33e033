// Small statistics over repeated measurements.

export function sorted(xs: readonly number[]): number[] {
  return [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of the finite values; NaN when there are none. */
export function percentile(xs: readonly number[], p: number): number {
  const s = sorted(xs);
  if (s.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

export function median(xs: readonly number[]): number {
  const s = sorted(xs);
  if (s.length === 0) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function min(xs: readonly number[]): number {
  return sorted(xs)[0] ?? NaN;
}

export function max(xs: readonly number[]): number {
  const s = sorted(xs);
  return s[s.length - 1] ?? NaN;
}

/** max/min - 1 of the values: how far apart repeats landed (0.1 = 10 %). */
export function spread(xs: readonly number[]): number {
  const lo = min(xs);
  const hi = max(xs);
  return lo > 0 ? hi / lo - 1 : NaN;
}
