// admitJob as a table: which job may be queued beside the BMC's jobs not yet ended.
import { describe, expect, it } from 'vitest';
import type { JobAction, JobState } from '../store/records.js';
import { admitJob } from './admission.js';

const job = (state: JobState, action: JobAction = 'boot-discovery') => ({
  id: `${state}-job`,
  action,
  state,
  createdAt: new Date('2026-11-28T07:00:00Z'),
});

describe('admitJob', () => {
  it.each<[string, JobAction, ReturnType<typeof job>[], string | undefined]>([
    ['nothing active', 'boot-discovery', [], undefined],
    ['a refresh while nothing runs', 'refresh', [], undefined],
    ['a refresh beside a following boot', 'refresh', [job('following')], undefined],
    ['an eject beside a following boot', 'eject', [job('following')], undefined],
    [
      'a boot beside a following boot',
      'boot-discovery',
      [job('following')],
      'is following the boot of job following-job',
    ],
    ['power beside a following boot', 'power-off', [job('following')], 'only refresh and eject run beside it'],
    ['a reset beside a following boot', 'power-reset', [job('following')], 'bootsmith bmc cancel n1'],
    [
      'anything while a job is queued',
      'refresh',
      [job('queued', 'refresh')],
      'has a queued job already (refresh queued-job',
    ],
    ['anything while a job runs', 'eject', [job('running')], 'has a running job already (boot-discovery running-job'],
    [
      'a refresh beside a following boot and a running eject',
      'refresh',
      [job('following'), job('running', 'eject')],
      'one job per BMC at a time',
    ],
  ])('%s', (_name, action, active, refused) => {
    const admission = admitJob('n1', action, active);
    if (refused === undefined) expect(admission).toEqual({ admitted: true });
    else {
      expect(admission.admitted).toBe(false);
      expect(admission.admitted === false && admission.reason).toContain(refused);
    }
  });
});
