// The steps of each job action, and where a job picks up again after a restart or a lost lease.
// Pure; tested as a table (job-steps.test.ts).
//
//   boot-discovery  discover, read-power, eject, insert, boot-override, power   (Redfish, phase 1)
//                   iso-read, booted, registered, eject-media                    (followed: follow-plan.ts)
//   eject           discover, eject
//   power-on|off|reset  discover, power
//   refresh         discover (the inventory)
//
// Resuming: every Redfish step re-reads what it acts on, so a step that was running when its
// replica stopped is run again — except a power action that may restart the host (boot-discovery's
// `power`, `power-reset`): it is marked `running` before its call, and a job found with it
// `running` fails with the reason instead of restarting the host a second time. The followed
// steps are observations (reads, registrations in the database): they simply continue.
// Does NOT: run anything (./job-runner.ts does).
import { BOOT_DISCOVERY_STEPS, type BootDiscoveryStep } from '../redfish/index.js';
import type { JobAction, JobStep } from '../store/records.js';

export const FOLLOW_STEPS = ['iso-read', 'booted', 'registered', 'eject-media'] as const;
export type FollowStep = (typeof FOLLOW_STEPS)[number];

const STEPS: Record<JobAction, readonly string[]> = {
  'boot-discovery': [...BOOT_DISCOVERY_STEPS, ...FOLLOW_STEPS],
  eject: ['discover', 'eject'],
  'power-on': ['discover', 'power'],
  'power-off': ['discover', 'power'],
  'power-reset': ['discover', 'power'],
  refresh: ['discover'],
};

/** Steps whose call must not be repeated once it may have been sent (a second restart restarts again). */
const NOT_REPEATED: Partial<Record<JobAction, readonly string[]>> = {
  'boot-discovery': ['power'],
  'power-reset': ['power'],
};

export function stepNames(action: JobAction): readonly string[] {
  return STEPS[action];
}

export function initialSteps(action: JobAction): JobStep[] {
  return STEPS[action].map((name) => ({ name, status: 'pending', detail: '' }));
}

export function isSettled(step: JobStep | undefined): boolean {
  return step !== undefined && (step.status === 'done' || step.status === 'skipped');
}

export type ResumePlan =
  /** Run the Redfish steps from `startAt` (boot-discovery: one of BOOT_DISCOVERY_STEPS). */
  | { kind: 'run'; startAt: string }
  /** boot-discovery: the Redfish steps are done; follow the boot. */
  | { kind: 'follow' }
  /** Every step is settled. */
  | { kind: 'finished' }
  | { kind: 'fail'; step: string; reason: string };

export function resumePlan(action: JobAction, steps: readonly JobStep[]): ResumePlan {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const notRepeated = NOT_REPEATED[action] ?? [];
  const redfish = action === 'boot-discovery' ? BOOT_DISCOVERY_STEPS : STEPS[action];
  for (const name of redfish) {
    const step = byName.get(name);
    if (isSettled(step)) continue;
    if (step?.status === 'running' && notRepeated.includes(name)) {
      return {
        kind: 'fail',
        step: name,
        reason:
          `the service stopped while the ${name} call was in flight; it is not repeated (a second restart would ` +
          'restart the host again): check the host, then start a new job',
      };
    }
    return { kind: 'run', startAt: name };
  }
  if (action !== 'boot-discovery') return { kind: 'finished' };
  return FOLLOW_STEPS.every((name) => isSettled(byName.get(name))) ? { kind: 'finished' } : { kind: 'follow' };
}

export function isBootDiscoveryStep(name: string): name is BootDiscoveryStep {
  return (BOOT_DISCOVERY_STEPS as readonly string[]).includes(name);
}
