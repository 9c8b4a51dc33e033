// A BMC job's event as the core stores it: an InfraEnv event whose message names the BMC and
// whose props carry the BMC, the job, its action and the step (the host id once known). One
// shape for the runner's step and job events and the service's cancel of a queued job.
// Does NOT: insert it (the caller does, through ../core-port.ts).
import type { BmcJobEvent } from '../core-port.js';
import type { JobRecord } from '../store/records.js';

export type JobEventName =
  | 'bmc_step_done'
  | 'bmc_step_skipped'
  | 'bmc_step_failed'
  | 'bmc_job_succeeded'
  | 'bmc_job_failed'
  | 'bmc_job_cancelled';

export function jobEvent(
  job: Pick<JobRecord, 'id' | 'bmcId' | 'action' | 'infraEnvId' | 'hostId'>,
  bmc: { name: string; infraEnvId: string | null } | undefined,
  name: JobEventName,
  words: string,
  step: string | undefined,
  at: Date,
): BmcJobEvent {
  const bmcName = bmc?.name ?? job.bmcId;
  return {
    name,
    severity: name === 'bmc_step_failed' || name === 'bmc_job_failed' ? 'error' : 'info',
    message: `BMC ${JSON.stringify(bmcName)}: ${words}`,
    eventTime: at,
    infraEnvId: job.infraEnvId ?? bmc?.infraEnvId ?? null,
    hostId: job.hostId,
    clusterId: null,
    props: JSON.stringify({
      bmc_id: job.bmcId,
      bmc_name: bmcName,
      job_id: job.id,
      action: job.action,
      ...(step ? { step } : {}),
    }),
  };
}
