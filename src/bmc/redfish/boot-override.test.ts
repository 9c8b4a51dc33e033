import { describe, expect, it } from 'vitest';
import { type BootMode, planBootOverride } from './boot-override.js';
import { RedfishError } from './errors.js';
import { PROFILES, type ProfileId } from './profiles.js';
import type { SystemInfo } from './resources.js';
import { system } from './test-support/builders.js';

const CASES: [string, ProfileId, SystemInfo, BootMode, Record<string, string>, string | undefined][] = [
  ['UEFI Cd Once', 'generic', system(), 'UEFI', { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd', BootSourceOverrideMode: 'UEFI' }, undefined],
  ['Legacy', 'dell-idrac', system(), 'Legacy', { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd', BootSourceOverrideMode: 'Legacy' }, undefined],
  ['Supermicro prefers UsbCd when allowed', 'supermicro', system({}, { allowedTargets: ['None', 'Pxe', 'Hdd', 'Cd', 'UsbCd'] }), 'UEFI',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'UsbCd', BootSourceOverrideMode: 'UEFI' }, undefined],
  ['Supermicro falls back to Cd when UsbCd is not allowed', 'supermicro', system(), 'UEFI',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd', BootSourceOverrideMode: 'UEFI' }, undefined],
  ['no allowable targets listed → the profile first choice', 'supermicro', system({}, { allowedTargets: undefined }), 'UEFI',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'UsbCd', BootSourceOverrideMode: 'UEFI' }, undefined],
  ['no BootSourceOverrideMode on the System → not sent', 'generic', system({}, { hasMode: false, mode: undefined }), 'UEFI',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd' }, undefined],
  ['allowable modes listed → sent', 'generic', system({}, { hasMode: false, allowedModes: ['UEFI', 'Legacy'] }), 'Legacy',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd', BootSourceOverrideMode: 'Legacy' }, undefined],
  ['Supermicro board listing only Cd → Cd, mode sent though the System hides it', 'supermicro', system({}, { allowedTargets: ['None', 'Pxe', 'Cd'], hasMode: false, mode: undefined }), 'UEFI',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd', BootSourceOverrideMode: 'UEFI' }, undefined],
  ['AMI: the full request although the System shows no mode', 'ami', system({}, { hasMode: false, mode: undefined }), 'UEFI',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd', BootSourceOverrideMode: 'UEFI' }, undefined],
  ['ETag → If-Match', 'lenovo-xcc', system({ etag: '"42"' }), 'UEFI',
    { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'Cd', BootSourceOverrideMode: 'UEFI' }, '"42"'],
]; // prettier-ignore

describe('planBootOverride', () => {
  it.each(CASES)('%s', (_name, profile, sys, mode, boot, ifMatch) => {
    const plan = planBootOverride('b', PROFILES[profile], sys, mode);
    expect(plan.body).toEqual({ Boot: boot });
    expect(plan.path).toBe(sys.path);
    expect(plan.ifMatch).toBe(ifMatch);
    expect(plan.target).toBe(boot.BootSourceOverrideTarget);
  });

  it('iDRAC 10: PATCHed to the Settings object with its ETag, not the System', () => {
    const sys = system({ etag: '"system-7"', settingsRef: '/redfish/v1/Systems/1/Settings' });
    const settings = { path: '/redfish/v1/Systems/1/Settings', etag: 'W/"settings-3"' };
    const plan = planBootOverride('b', PROFILES['dell-idrac10'], sys, 'UEFI', settings);
    expect(plan.path).toBe(settings.path);
    expect(plan.ifMatch).toBe('W/"settings-3"');
    // Other profiles ignore a Settings object: the System as before.
    expect(planBootOverride('b', PROFILES.generic, sys, 'UEFI', settings)).toMatchObject({
      path: sys.path,
      ifMatch: '"system-7"',
    });
  });

  const REFUSED: [string, SystemInfo, BootMode, RegExp][] = [
    ['no CD among the allowed targets', system({}, { allowedTargets: ['None', 'Pxe', 'Hdd'] }), 'UEFI', /allows boot targets None, Pxe, Hdd; none boots virtual media \(Cd\)/],
    ['UEFI requested on a Legacy-only system', system({}, { allowedModes: ['Legacy'] }), 'UEFI', /allows boot modes Legacy, not UEFI/],
  ]; // prettier-ignore
  it.each(REFUSED)('%s → unsupported', (_name, sys, mode, why) => {
    expect(() => planBootOverride('b', PROFILES.generic, sys, mode)).toThrow(RedfishError);
    expect(() => planBootOverride('b', PROFILES.generic, sys, mode)).toThrow(why);
  });
});
