import { describe, expect, it } from 'vitest';
import { statusForError } from '../error-status.js';
import { checkBootMethod, effectiveBootMethod, HttpBootUnsupportedError } from './boot-method.js';
import type { BmcInventory } from './redfish/index.js';
import type { BmcRecord } from './store/records.js';

function inventory(allowedTargets: string[] | undefined, slots: number): BmcInventory {
  return {
    address: 'https://10.0.0.1/redfish/v1',
    profile: { id: 'generic', label: 'g', reason: 'r', overridden: false },
    vendor: undefined,
    product: undefined,
    redfishVersion: undefined,
    system: { path: '/redfish/v1/Systems/1', id: '1', manufacturer: undefined, model: undefined, serialNumber: undefined, uuid: undefined, powerState: 'Off' },
    managers: [],
    macs: [],
    boot: { enabled: 'Disabled', target: 'None', mode: 'UEFI', allowedTargets, allowedModes: undefined },
    resetTypes: undefined,
    virtualMedia: Array.from({ length: slots }, (_v, i) => ({ id: `CD${i}`, path: `/vm/CD${i}`, location: 'manager', mediaTypes: ['CD'], inserted: false, image: undefined })),
  };
} // prettier-ignore

const bmc = (over: Partial<BmcRecord>): BmcRecord =>
  ({
    name: 'r1-n07',
    bootMode: 'UEFI',
    bootMethod: null,
    profileOverride: null,
    inventory: null,
    ...over,
  }) as BmcRecord;

describe('effectiveBootMethod', () => {
  it('the chosen method, the job request first', () => {
    expect(effectiveBootMethod(bmc({ bootMethod: 'http' }))).toBe('http');
    expect(effectiveBootMethod(bmc({ bootMethod: 'http' }), 'virtual-media')).toBe('virtual-media');
  });
  it('auto: unknown before an inventory; then by slots and UefiHttp', () => {
    expect(effectiveBootMethod(bmc({}))).toBeUndefined();
    expect(effectiveBootMethod(bmc({ inventory: inventory(['Cd', 'UefiHttp'], 1) }))).toBe('virtual-media');
    expect(effectiveBootMethod(bmc({ inventory: inventory(['Hdd', 'UefiHttp'], 0) }))).toBe('http');
  });
});

describe('checkBootMethod', () => {
  it('passes virtual media, and http on a BMC listing UefiHttp or not read yet', () => {
    expect(() => checkBootMethod(bmc({}), 'virtual-media')).not.toThrow();
    expect(() => checkBootMethod(bmc({}), 'http')).not.toThrow();
    expect(() => checkBootMethod(bmc({ inventory: inventory(['UefiHttp'], 0) }), 'http')).not.toThrow();
  });
  it.each<[string, BmcRecord, RegExp]>([
    ['Legacy boot mode', bmc({ bootMode: 'Legacy' }), /BMC "r1-n07": HTTP boot is not possible: UEFI HTTP Boot needs boot mode UEFI, not Legacy/],
    ['no UefiHttp listed', bmc({ inventory: inventory(['None', 'Cd'], 1) }), /no UefiHttp boot target \(allows None, Cd\)/],
    ['a Dell profile set by hand, no UefiHttp', bmc({ profileOverride: 'dell-idrac', inventory: inventory(['Cd'], 1) }), /no UefiHttp boot target/],
  ])('%s → HttpBootUnsupportedError (422)', (_name, record, why) => {
    let caught: unknown;
    try {
      checkBootMethod(record, 'http');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(HttpBootUnsupportedError);
    expect(statusForError(caught)).toBe(422);
    expect((caught as Error).message).toMatch(why);
  }); // prettier-ignore
});
