import { describe, expect, it } from 'vitest';
import { RedfishError } from './errors.js';
import { planPower, type ResetType } from './power-plan.js';

const ALL = [
  'On',
  'ForceOff',
  'GracefulShutdown',
  'GracefulRestart',
  'ForceRestart',
  'Nmi',
  'ForceOn',
  'PushPowerButton',
  'PowerCycle',
];

const CASES: [string, string | undefined, string[] | undefined, ResetType[]][] = [
  ['on, everything allowed → ForceRestart', 'On', ALL, ['ForceRestart']],
  ['on, nothing listed → ForceRestart (standard set assumed)', 'On', undefined, ['ForceRestart']],
  ['powering on counts as on', 'PoweringOn', ALL, ['ForceRestart']],
  ['on, no ForceRestart → PowerCycle', 'On', ['On', 'ForceOff', 'GracefulShutdown', 'PowerCycle'], ['PowerCycle']],
  ['on, neither → ForceOff then On', 'On', ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart'], ['ForceOff', 'On']],
  ['on, ForceOff and only ForceOn', 'On', ['ForceOff', 'ForceOn', 'GracefulShutdown'], ['ForceOff', 'ForceOn']],
  ['off → On', 'Off', ALL, ['On']],
  ['powering off counts as off', 'PoweringOff', ALL, ['On']],
  ['off, only ForceOn', 'Off', ['ForceOn', 'ForceOff'], ['ForceOn']],
  ['state case does not matter', 'on', ['ForceRestart'], ['ForceRestart']],
]; // prettier-ignore

describe('planPower', () => {
  it.each(CASES)('%s', (_name, state, allowed, actions) => {
    const plan = planPower('b', state, allowed);
    expect(plan.actions).toEqual(actions);
    expect(plan.actions).not.toContain('GracefulShutdown');
  });

  const REFUSED: [string, string | undefined, string[] | undefined, RegExp][] = [
    ['on with only graceful actions: GracefulShutdown is never used', 'On', ['On', 'GracefulShutdown', 'GracefulRestart'], /no forced restart .*GracefulShutdown is never used/],
    ['off without On or ForceOn', 'Off', ['ForceOff', 'GracefulShutdown'], /neither On nor ForceOn/],
    ['no PowerState', undefined, ALL, /power state \(none\), neither on nor off/],
    ['a state we cannot read', 'Paused', ALL, /power state "Paused"/],
  ]; // prettier-ignore
  it.each(REFUSED)('%s → unsupported', (_name, state, allowed, why) => {
    let error: unknown;
    try {
      planPower('r1', state, allowed);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RedfishError);
    expect((error as RedfishError).failure).toBe('unsupported');
    expect((error as RedfishError).message).toMatch(why);
  });
});
