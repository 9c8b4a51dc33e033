// How big a fuzz campaign is: the number of cases per property and the seed.
//
// CI runs the short campaign (the counts the tests ask for); `npm run fuzz` sets FUZZ_MODE=long
// and multiplies them by 10. FUZZ_RUNS overrides the count outright, FUZZ_SEED the seed (the
// default is fixed so that a CI failure replays as is). Does not run anything itself.
export const LONG = process.env.FUZZ_MODE === 'long';

export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 0x0b007;

/** Cases for one property: `ciRuns` in CI, ten times that in the long campaign. */
export function fuzzRuns(ciRuns: number): number {
  if (process.env.FUZZ_RUNS) return Number(process.env.FUZZ_RUNS);
  return LONG ? ciRuns * 10 : ciRuns;
}

/** fast-check parameters for one property: seeded, sized, and never retried after the first failure. */
export function fuzzParameters(ciRuns: number): { numRuns: number; seed: number; endOnFailure: true } {
  return { numRuns: fuzzRuns(ciRuns), seed: FUZZ_SEED, endOnFailure: true };
}
