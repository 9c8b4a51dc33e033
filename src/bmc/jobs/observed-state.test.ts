// observationsOf and applyObservations as tables: what each step's outcome changes in the stored
// inventory (power, slots, boot override), and that nothing else changes.
import { describe, expect, it } from 'vitest';
import type { BmcInventory } from '../redfish/index.js';
import type { JobAction } from '../store/records.js';
import { applyObservations, type Observation, observationsOf } from './observed-state.js';

const INVENTORY: BmcInventory = {
  address: 'https://bmc',
  profile: { id: 'generic', label: 'DMTF Redfish', reason: 'default', overridden: false },
  vendor: undefined,
  product: undefined,
  redfishVersion: '1.11.0',
  system: {
    path: '/redfish/v1/Systems/1',
    id: '1',
    manufacturer: 'Emu',
    model: 'E1',
    serialNumber: 'S1',
    uuid: 'c0ffee00-0000-4000-8000-000000000001',
    powerState: 'Off',
  },
  managers: [],
  macs: ['52:54:00:00:00:01'],
  boot: { enabled: 'Disabled', target: 'None', mode: 'UEFI', allowedTargets: undefined, allowedModes: undefined },
  resetTypes: ['On', 'ForceOff'],
  virtualMedia: [
    { id: 'CD1', path: '/m/CD1', location: 'manager', mediaTypes: ['CD'], inserted: false, image: undefined },
    { id: 'CD2', path: '/m/CD2', location: 'manager', mediaTypes: ['CD'], inserted: true, image: 'http://old/x.iso' },
  ],
};

describe('observationsOf', () => {
  it.each<[JobAction, string, Record<string, unknown> | undefined, Observation[]]>([
    ['boot-discovery', 'read-power', { powerState: 'On' }, [{ kind: 'power', state: 'On' }]],
    ['boot-discovery', 'read-power', {}, []],
    ['boot-discovery', 'eject', { ejected: ['CD2'], empty: ['CD1'] }, [{ kind: 'ejected', slots: ['CD2'] }]],
    ['boot-discovery', 'eject', { ejected: [], empty: ['CD1', 'CD2'] }, []],
    [
      'boot-discovery',
      'insert',
      { slot: 'CD1', method: 'action', url: 'http://svc/bytoken/[REDACTED]/4.17/x86_64/full.iso' },
      [{ kind: 'inserted', slot: 'CD1', image: 'http://svc/bytoken/[REDACTED]/4.17/x86_64/full.iso' }],
    ],
    [
      'boot-discovery',
      'boot-override',
      { target: 'Cd', mode: 'UEFI' },
      [{ kind: 'boot-override', target: 'Cd', mode: 'UEFI' }],
    ],
    ['boot-discovery', 'power', { from: 'off', actions: ['On'] }, [{ kind: 'power', state: 'On' }]],
    ['boot-discovery', 'power', { from: 'on', actions: ['ForceRestart'] }, [{ kind: 'power', state: 'On' }]],
    ['power-on', 'power', { from: 'on', actions: [] }, [{ kind: 'power', state: 'On' }]],
    ['power-off', 'power', { from: 'on', actions: ['ForceOff'] }, [{ kind: 'power', state: 'Off' }]],
    ['power-reset', 'power', { from: 'off', actions: ['On'] }, [{ kind: 'power', state: 'On' }]],
    ['eject', 'eject', { ejected: ['CD1', 'CD2'], empty: [] }, [{ kind: 'ejected', slots: ['CD1', 'CD2'] }]],
    ['boot-discovery', 'eject-media', { ejected: ['CD1'], empty: ['CD2'] }, [{ kind: 'ejected', slots: ['CD1'] }]],
    ['refresh', 'discover', { profile: 'generic' }, []],
    ['boot-discovery', 'registered', { hostId: 'h' }, []],
  ])('%s %s %j', (action, step, data, expected) => {
    expect(observationsOf(action, step, data)).toEqual(expected);
  });
});

describe('applyObservations', () => {
  it('leaves the inventory as it is without an observation', () => {
    expect(applyObservations(INVENTORY, [])).toBe(INVENTORY);
  });
  it.each<[string, Observation[], (inv: BmcInventory) => unknown, unknown]>([
    ['power', [{ kind: 'power', state: 'On' }], (i) => i.system.powerState, 'On'],
    [
      'an eject empties the slots it names',
      [{ kind: 'ejected', slots: ['CD2'] }],
      (i) => i.virtualMedia.map((s) => [s.id, s.inserted, s.image]),
      [
        ['CD1', false, undefined],
        ['CD2', false, undefined],
      ],
    ],
    [
      'an insert fills its slot',
      [{ kind: 'inserted', slot: 'CD1', image: 'http://svc/x.iso' }],
      (i) => i.virtualMedia.map((s) => [s.id, s.inserted, s.image]),
      [
        ['CD1', true, 'http://svc/x.iso'],
        ['CD2', true, 'http://old/x.iso'],
      ],
    ],
    [
      'the boot override',
      [{ kind: 'boot-override', target: 'UsbCd', mode: undefined }],
      (i) => i.boot,
      { ...INVENTORY.boot, enabled: 'Once', target: 'UsbCd', mode: 'UEFI' },
    ],
    [
      'a whole boot: eject, insert, override, power',
      [
        { kind: 'ejected', slots: ['CD2'] },
        { kind: 'inserted', slot: 'CD1', image: 'http://svc/x.iso' },
        { kind: 'boot-override', target: 'Cd', mode: 'Legacy' },
        { kind: 'power', state: 'On' },
      ],
      (i) => [i.system.powerState, i.boot.enabled, i.boot.mode, i.virtualMedia.map((s) => s.inserted)],
      ['On', 'Once', 'Legacy', [true, false]],
    ],
    [
      'nothing else changes',
      [{ kind: 'power', state: 'On' }],
      (i) => [i.macs, i.system.serialNumber, i.profile.id],
      [['52:54:00:00:00:01'], 'S1', 'generic'],
    ],
  ])('%s', (_name, observations, pick, expected) => {
    expect(pick(applyObservations(INVENTORY, observations))).toEqual(expected);
    expect(INVENTORY.system.powerState).toBe('Off'); // the input is not changed
  });
});
