import { describe, expect, it } from 'vitest';
import { RedfishError } from './errors.js';
import { PROFILES, type ProfileId } from './profiles.js';
import type { SlotInfo } from './resources.js';
import { planSlots } from './slot-plan.js';
import { slot } from './test-support/builders.js';

const floppy = slot('Floppy1', { mediaTypes: ['Floppy', 'USBStick'] });
const cd = slot('CD1', { mediaTypes: ['CD', 'DVD'] });
const dvdOnly = slot('DVD1', { mediaTypes: ['DVD'] });
const unknown = slot('X', { mediaTypes: [] });
const sysCd = slot('1', {
  mediaTypes: ['CD', 'DVD'],
  location: 'system',
  path: '/redfish/v1/Systems/S/VirtualMedia/1',
});
const sysRemovable = slot('2', {
  mediaTypes: ['CD', 'DVD', 'USBStick'],
  location: 'system',
  path: '/redfish/v1/Systems/S/VirtualMedia/2',
});
const noAction = slot('KVM', { insertTarget: undefined });
const patchOnly = slot('RDOC1', { insertTarget: undefined, ejectTarget: undefined, allowPatch: true });

// profile, slots in BMC order → candidates (id:method) in order
const ORDER: [string, ProfileId, SlotInfo[], string[]][] = [
  ['CD slot after a floppy', 'generic', [floppy, cd], ['CD1:action']],
  ['CD before DVD-only whatever the BMC order (Cisco DVD-only slots come second)', 'cisco', [dvdOnly, cd], ['CD1:action', 'DVD1:action']],
  ['slots without MediaTypes come last', 'generic', [unknown, dvdOnly, cd], ['CD1:action', 'DVD1:action', 'X:action']],
  ['equal ranks keep the BMC order', 'generic', [slot('B'), slot('A')], ['B:action', 'A:action']],
  ['no action but Allow: PATCH → PATCH (sushy falls back the same way)', 'generic', [patchOnly], ['RDOC1:patch']],
  ['Lenovo PATCHes even where an action is listed', 'lenovo-xcc', [cd], ['CD1:patch']],
  ['iDRAC: System slots before Manager slots', 'dell-idrac', [cd, sysCd], ['1:action', 'CD1:action']],
  ['generic: Manager slots before System slots', 'generic', [sysCd, cd], ['CD1:action', '1:action']],
  ['iDRAC 10: slot 1 only', 'dell-idrac10', [sysRemovable, sysCd], ['1:action']],
]; // prettier-ignore

describe('planSlots: order', () => {
  it.each(ORDER)('%s', (_name, profile, slots, expected) => {
    const plan = planSlots('b', PROFILES[profile], slots);
    expect(plan.candidates.map((c) => `${c.slot.id}:${c.method}`)).toEqual(expected);
    expect(plan.candidates.length + plan.skipped.length).toBe(slots.length);
  });

  it('says why a slot is skipped', () => {
    const plan = planSlots('b', PROFILES['dell-idrac10'], [floppy, noAction, sysRemovable, sysCd]);
    expect(plan.skipped).toEqual([
      { slot: 'Floppy1', why: 'MediaTypes Floppy/USBStick has no CD or DVD' },
      { slot: 'KVM', why: 'the Dell iDRAC 10 (17G and later) profile boots only from slot 1' },
      { slot: '2', why: 'the Dell iDRAC 10 (17G and later) profile boots only from slot 1' },
    ]);
  });
});

const NONE: [string, ProfileId, SlotInfo[], RegExp][] = [
  ['no slots at all', 'generic', [], /lists no virtual media slots/],
  ['only floppy/USB slots', 'generic', [floppy, slot('U', { mediaTypes: ['USBStick'] })], /no slot can take a CD image \(Floppy1: MediaTypes Floppy\/USBStick has no CD or DVD; U: /],
  ['a CD slot with no way in', 'generic', [noAction], /KVM: it has no InsertMedia action and does not allow PATCH/],
  ['iDRAC 10 without slot 1', 'dell-idrac10', [sysRemovable], /boots only from slot 1/],
]; // prettier-ignore

describe('planSlots: no CD-capable slot', () => {
  it.each(NONE)('%s → a clear unsupported error', (_name, profile, slots, why) => {
    let error: unknown;
    try {
      planSlots('rack2-n7', PROFILES[profile], slots);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RedfishError);
    expect((error as RedfishError).failure).toBe('unsupported');
    expect((error as RedfishError).message).toMatch(/^BMC "rack2-n7": insert: not supported by this BMC: /);
    expect((error as RedfishError).message).toMatch(why);
  });
});
