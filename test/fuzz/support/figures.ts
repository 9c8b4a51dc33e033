// The figures a fuzz or fault category reports: how many cases ran and how many of them
// crashed the code under test, hung past their bound, were wrongly accepted, or lost data.
//
// Each category calls recordFigures once; lines are appended to the file global-setup.ts named
// (one JSON object per line, so test files in separate processes never interleave a record).
// Does not decide what counts as a crash: the category does, and says so in `notes`.
import { appendFileSync } from 'node:fs';

export interface CategoryFigures {
  /** Short stable name, e.g. "iso-mutations", "rock-ridge-bombs", "idle-clients". */
  category: string;
  cases: number;
  /** Uncaught exceptions, process deaths, 5xx where a 4xx was due. */
  crashes: number;
  /** Cases that went past their time bound. */
  hangs: number;
  /** Hostile input accepted as valid (served, stored, authenticated). */
  wrongAcceptances: number;
  /** Acknowledged writes or verified bytes missing afterwards. */
  dataLost: number;
  notes?: string;
}

export const FIGURES_FILE_ENV = 'BOOTSMITH_FUZZ_FIGURES_FILE';

export function recordFigures(figures: CategoryFigures): void {
  const file = process.env[FIGURES_FILE_ENV];
  if (!file) return; // run outside the fuzz config (e.g. one file by hand): nothing to collect
  appendFileSync(file, `${JSON.stringify(figures)}\n`);
}
