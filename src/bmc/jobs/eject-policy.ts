// Whether a boot job ejects the media once the host registered. Pure; tested as a table.
//
// A CoreOS live system booted from a full ISO mounts the ISO and reads its root file system from
// it for as long as it runs (the squashfs is not copied to RAM unless the kernel command line has
// `coreos.liveiso.fromram`); pulling the CD from under it breaks the discovery agent's host at the
// next file it reads. A minimal ISO fetches its root file system over the network into RAM
// (`coreos.live.rootfs_url`), so its CD is not needed once the host runs. Hence `auto` (the
// default) ejects when the live system does not need the CD, and says why when it keeps it;
// `always` and `never` do what they say.
//
// A cancelled boot job ejects by the same policy, with two more facts: nothing to eject when the
// job never inserted its ISO or ejected it already; and a host never powered from it has no live
// system reading the CD, so `auto` ejects (`never` still keeps it).
// Does NOT: eject (./job-runner.ts does, through the Redfish client).
import type { EjectPolicy, JobStep } from '../store/records.js';

type EjectInfraEnv = { imageType: 'full-iso' | 'minimal-iso'; kernelArguments: readonly { value: string }[] | null };

export const FROM_RAM_KARG = 'coreos.liveiso.fromram';

export interface EjectDecision {
  eject: boolean;
  why: string;
}

export function ejectDecision(policy: EjectPolicy, infraEnv: EjectInfraEnv | undefined): EjectDecision {
  if (policy === 'always') return { eject: true, why: 'eject always' };
  if (policy === 'never') return { eject: false, why: 'kept: eject never' };
  if (infraEnv?.imageType === 'minimal-iso')
    return { eject: true, why: 'a minimal ISO loads its root file system into RAM' };
  const fromRam = (infraEnv?.kernelArguments ?? []).some((k) => k.value.split(/\s+/).includes(FROM_RAM_KARG));
  if (fromRam) return { eject: true, why: `the live system runs from RAM (${FROM_RAM_KARG})` };
  return {
    eject: false,
    why:
      'kept: the live system of a full ISO reads its root file system from the CD ' +
      `(add ${FROM_RAM_KARG} to the InfraEnv's kernel_arguments or use a minimal ISO to have it ejected; eject=always forces it)`,
  };
}

/** Whether a boot job being cancelled ejects, from where its steps stand. */
export function cancelEjectDecision(
  policy: EjectPolicy,
  steps: readonly Pick<JobStep, 'name' | 'status'>[],
  infraEnv: EjectInfraEnv | undefined,
): EjectDecision | { eject: false; why: string; nothing: true } {
  const status = (name: string) => steps.find((s) => s.name === name)?.status;
  if (status('insert') !== 'done') return { eject: false, why: 'no media of this job was inserted', nothing: true };
  if (status('eject-media') === 'done') return { eject: false, why: 'the media was ejected already', nothing: true };
  if (policy === 'auto' && status('power') !== 'done') return { eject: true, why: 'the host was not booted from it' };
  return ejectDecision(policy, infraEnv);
}
