// Where a job picks up after a restart, as a table: settled steps are skipped, an interrupted
// idempotent step runs again, an interrupted power action that may restart the host fails the job.
import { describe, expect, it } from 'vitest';
import type { JobAction, JobStep, StepStatus } from '../store/records.js';
import { initialSteps, type ResumePlan, resumePlan, stepNames } from './job-steps.js';

function steps(action: JobAction, statuses: Record<string, StepStatus>): JobStep[] {
  return initialSteps(action).map((s) => ({ ...s, status: statuses[s.name] ?? 'pending' }));
}

const DONE_REDFISH = {
  discover: 'done',
  'read-power': 'done',
  eject: 'done',
  insert: 'done',
  'boot-override': 'done',
} as const;

describe('steps per action', () => {
  it.each<[JobAction, string[]]>([
    [
      'boot-discovery',
      [
        'discover',
        'read-power',
        'eject',
        'insert',
        'boot-override',
        'power',
        'iso-read',
        'booted',
        'registered',
        'eject-media',
      ],
    ],
    ['eject', ['discover', 'eject']],
    ['power-on', ['discover', 'power']],
    ['power-off', ['discover', 'power']],
    ['power-reset', ['discover', 'power']],
    ['refresh', ['discover']],
  ])('%s', (action, names) => {
    expect(stepNames(action)).toEqual(names);
    expect(initialSteps(action).every((s) => s.status === 'pending')).toBe(true);
  });
});

describe('resumePlan', () => {
  it.each<[string, JobAction, Record<string, StepStatus>, ResumePlan]>([
    ['a new boot job starts at discover', 'boot-discovery', {}, { kind: 'run', startAt: 'discover' }],
    [
      'an interrupted insert runs again',
      'boot-discovery',
      { discover: 'done', 'read-power': 'done', eject: 'done', insert: 'running' },
      { kind: 'run', startAt: 'insert' },
    ],
    [
      'a skipped step counts as settled',
      'boot-discovery',
      { discover: 'done', 'read-power': 'skipped' },
      { kind: 'run', startAt: 'eject' },
    ],
    ['power not yet started runs', 'boot-discovery', { ...DONE_REDFISH }, { kind: 'run', startAt: 'power' }],
    [
      'power in flight is not repeated',
      'boot-discovery',
      { ...DONE_REDFISH, power: 'running' },
      {
        kind: 'fail',
        step: 'power',
        reason:
          'the service stopped while the power call was in flight; it is not repeated (a second restart would restart the host again): check the host, then start a new job',
      },
    ],
    ['power done: follow the boot', 'boot-discovery', { ...DONE_REDFISH, power: 'done' }, { kind: 'follow' }],
    [
      'following continues',
      'boot-discovery',
      { ...DONE_REDFISH, power: 'done', 'iso-read': 'done', booted: 'running' },
      { kind: 'follow' },
    ],
    [
      'all settled',
      'boot-discovery',
      {
        ...DONE_REDFISH,
        power: 'done',
        'iso-read': 'done',
        booted: 'done',
        registered: 'done',
        'eject-media': 'skipped',
      },
      { kind: 'finished' },
    ],
    ['eject runs again', 'eject', { discover: 'done', eject: 'running' }, { kind: 'run', startAt: 'eject' }],
    [
      'power on runs again (it reads the power state first)',
      'power-on',
      { discover: 'done', power: 'running' },
      { kind: 'run', startAt: 'power' },
    ],
    ['power off runs again', 'power-off', { discover: 'done', power: 'running' }, { kind: 'run', startAt: 'power' }],
    [
      'a reset in flight is not repeated',
      'power-reset',
      { discover: 'done', power: 'running' },
      expect.objectContaining({ kind: 'fail', step: 'power' }) as ResumePlan,
    ],
    ['refresh runs again', 'refresh', { discover: 'running' }, { kind: 'run', startAt: 'discover' }],
    ['refresh done', 'refresh', { discover: 'done' }, { kind: 'finished' }],
  ])('%s', (_name, action, statuses, plan) => {
    expect(resumePlan(action, steps(action, statuses))).toEqual(plan);
  });
});
