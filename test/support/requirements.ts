// What a test needs from the machine (a tool, ../shared), and what happens when it is missing:
// outside CI the suite is skipped with one line saying what is missing; under CI=true (where
// .ci/run installs every tool and ../shared is checked out beside the project) the missing piece
// fails the run, so a green CI always means every suite ran.
//
// Used as `describe.skipIf(unavailable({ xorriso: HAVE_XORRISO, fixtures: HAVE_FIXTURES }))(…)`.
// Does not probe anything itself: callers pass what they found.
import { spawnSync } from 'node:child_process';

export class MissingRequirementError extends Error {}

/** True when `command args…` runs and exits 0. */
export function toolWorks(command: string, args: string[] = ['--version']): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/**
 * True when some requirement is missing (so the suite should be skipped). Under CI=true it
 * throws instead, failing the test file with a message naming what is missing.
 */
export function unavailable(requirements: Record<string, boolean>): boolean {
  const missing = Object.entries(requirements)
    .filter(([, present]) => !present)
    .map(([name]) => name);
  if (missing.length === 0) return false;
  if (process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0') {
    throw new MissingRequirementError(
      `CI=${process.env.CI}: tests need ${missing.join(', ')}, which this machine lacks`,
    );
  }
  console.warn(`skipping tests that need ${missing.join(', ')} (missing here)`);
  return true;
}
