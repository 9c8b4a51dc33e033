// Whether a job may be queued for a BMC, given the BMC's jobs not yet ended. Pure; tested as a
// table (admission.test.ts).
//
//   nothing active                        → admitted
//   a job holds the BMC (queued, running) → refused: one job per BMC at a time (the database's
//                                           unique index refuses it too, whatever races)
//   only following boot jobs              → refresh and eject are admitted beside them: they read
//                                           or empty the media slots and do not touch what the boot
//                                           waits for (reads of its URL, a registration); anything
//                                           else (a boot, power) would pull the host from under the
//                                           boot being followed, so it is refused naming that job
//                                           and how to cancel it
// Does NOT: read or write the database (../bmc-service.ts asks, under the BMC row's lock).
import { holdingConflict } from '../store/bmc-repository.js';
import type { JobAction, JobRecord } from '../store/records.js';

/** Actions that may run while a boot job follows its host. */
export const BESIDE_FOLLOWING: readonly JobAction[] = ['refresh', 'eject'];

export type Admission = { admitted: true } | { admitted: false; reason: string; jobId: string };

export function admitJob(
  bmcName: string,
  action: JobAction,
  active: readonly Pick<JobRecord, 'id' | 'action' | 'state' | 'createdAt'>[],
): Admission {
  const holding = active.find((j) => j.state === 'queued' || j.state === 'running');
  if (holding) return { admitted: false, jobId: holding.id, reason: holdingConflict(bmcName, holding) };
  const following = active.find((j) => j.state === 'following');
  if (following && !BESIDE_FOLLOWING.includes(action)) {
    return {
      admitted: false,
      jobId: following.id,
      reason:
        `BMC ${JSON.stringify(bmcName)} is following the boot of job ${following.id} (its host has not registered yet): only ` +
        `${BESIDE_FOLLOWING.join(' and ')} run beside it; cancel it first (bootsmith bmc cancel ${bmcName})`,
    };
  }
  return { admitted: true };
}
