// Which ComputerSystem.Reset actions bring a system up on its next boot. Pure, tested as a table.
//
//   on (On, PoweringOn)    ForceRestart if allowed, else PowerCycle, else ForceOff then On
//                          (or ForceOn). GracefulShutdown/GracefulRestart are never used: an OS
//                          may ignore them, and a host idling at "no bootable device" has no OS
//                          to ask, so they would do nothing.
//   off (Off, PoweringOff) On, else ForceOn.
// Allowable values come from `ResetType@Redfish.AllowableValues` or the action's ActionInfo;
// when a BMC lists neither, every standard value is assumed (sushy does the same).
// Does NOT: call the BMC or wait for power states. Next: client.ts runs the plan.
import { RedfishError } from './errors.js';

export type ResetType = 'On' | 'ForceOn' | 'ForceOff' | 'ForceRestart' | 'PowerCycle';

export interface PowerPlan {
  /** Reset actions in order; a ForceOff is followed by waiting for Off before the next. */
  actions: ResetType[];
  /** Power state the plan started from, simplified. */
  from: 'on' | 'off';
  why: string;
}

const ON_STATES = ['on', 'poweringon'];
const OFF_STATES = ['off', 'poweringoff'];

export function planPower(
  bmc: string,
  powerState: string | undefined,
  allowed: readonly string[] | undefined,
): PowerPlan {
  const fail = (why: string): never => {
    throw new RedfishError({ bmc, step: 'power', failure: 'unsupported' }, why);
  };
  const can = (t: ResetType): boolean => allowed === undefined || allowed.includes(t);
  const state = (powerState ?? '').toLowerCase();
  const listed = allowed === undefined ? 'no allowable values listed' : `allowed: ${allowed.join(', ') || '(none)'}`;
  if (OFF_STATES.includes(state)) {
    if (can('On')) return { actions: ['On'], from: 'off', why: `power is ${powerState}: On` };
    if (can('ForceOn'))
      return { actions: ['ForceOn'], from: 'off', why: `power is ${powerState}: ForceOn (On not ${listed})` };
    return fail(`power is ${powerState} and the Reset action offers neither On nor ForceOn (${listed})`);
  }
  if (ON_STATES.includes(state)) {
    if (can('ForceRestart'))
      return { actions: ['ForceRestart'], from: 'on', why: `power is ${powerState}: ForceRestart` };
    if (can('PowerCycle'))
      return {
        actions: ['PowerCycle'],
        from: 'on',
        why: `power is ${powerState}: PowerCycle (no ForceRestart; ${listed})`,
      };
    const on: ResetType | undefined = can('On') ? 'On' : can('ForceOn') ? 'ForceOn' : undefined;
    if (can('ForceOff') && on)
      return {
        actions: ['ForceOff', on],
        from: 'on',
        why: `power is ${powerState}: ForceOff then ${on} (no ForceRestart or PowerCycle; ${listed})`,
      };
    return fail(
      `power is ${powerState} and the Reset action offers no forced restart (ForceRestart, PowerCycle, or ForceOff with On; ${listed}); GracefulShutdown is never used`,
    );
  }
  return fail(
    `the System reports power state ${powerState === undefined ? '(none)' : JSON.stringify(powerState)}, neither on nor off`,
  );
}
