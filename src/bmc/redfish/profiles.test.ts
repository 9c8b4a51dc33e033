import { describe, expect, it } from 'vitest';
import { type DetectionFacts, detectProfile, PROFILE_IDS, PROFILES, type ProfileId } from './profiles.js';

// Facts as real BMCs report them (service root Vendor/Oem/Product, Manager Model/FirmwareVersion,
// System Manufacturer), one row each.
const DETECTION: [string, DetectionFacts, ProfileId][] = [
  ['nothing known', {}, 'generic'],
  ['OpenBMC-ish root with no vendor', { rootProduct: 'OpenBMC', managerModel: 'OpenBmc' }, 'generic'],
  ['iDRAC 9 by Vendor', { rootVendor: 'Dell', managerModel: '14G Monolithic', managerFirmware: '6.10.30.00' }, 'dell-idrac'],
  ['iDRAC 8 by Oem only (pre-Redfish 1.5 root has no Vendor)', { rootOemVendors: ['Dell'], managerModel: '13G Modular' }, 'dell-idrac'],
  ['iDRAC 9 16G DCS', { rootVendor: 'Dell', managerModel: '16G DCS' }, 'dell-idrac'],
  ['iDRAC 10 (17G)', { rootVendor: 'Dell', managerModel: '17G Monolithic', managerFirmware: '1.20.25.00' }, 'dell-idrac10'],
  ['iDRAC 10 (18G)', { rootVendor: 'Dell', managerModel: '18G Monolithic' }, 'dell-idrac10'],
  ['Dell by Product', { rootProduct: 'Integrated Dell Remote Access Controller' }, 'dell-idrac'],
  ['Dell by System Manufacturer', { systemManufacturer: 'Dell Inc.' }, 'dell-idrac'],
  ['iLO 5', { rootVendor: 'HPE', rootOemVendors: ['Hpe'], managerModel: 'iLO 5', managerFirmware: 'iLO 5 v2.72' }, 'hpe-ilo'],
  ['iLO 4 by Oem Hp', { rootOemVendors: ['Hp'], managerModel: 'iLO 4' }, 'hpe-ilo'],
  ['iLO 7 by Model', { rootVendor: 'HPE', managerModel: 'iLO 7' }, 'hpe-ilo7'],
  ['iLO 7 by FirmwareVersion', { rootVendor: 'HPE', managerModel: 'iLO', managerFirmware: 'iLO 7 v1.12.00' }, 'hpe-ilo7'],
  ['Supermicro by Vendor', { rootVendor: 'Supermicro', managerModel: 'X12DPG-QT6' }, 'supermicro'],
  ['Supermicro by System Manufacturer', { systemManufacturer: 'Supermicro' }, 'supermicro'],
  ['Lenovo XCC', { rootVendor: 'Lenovo', managerModel: 'Lenovo XClarity Controller' }, 'lenovo-xcc'],
  ['Lenovo by Oem', { rootOemVendors: ['Lenovo'] }, 'lenovo-xcc'],
  ['Cisco CIMC', { rootVendor: 'Cisco Systems Inc.', managerModel: 'UCSC-C220-M6' }, 'cisco'],
  ['AMI by Vendor', { rootVendor: 'AMI', managerModel: 'MegaRAC SP-X' }, 'ami'],
  ['ASRockRack by System Manufacturer', { systemManufacturer: 'ASRockRack' }, 'ami'],
  ['Vendor wins over a misleading Product', { rootVendor: 'Lenovo', rootProduct: 'iLO-like' }, 'lenovo-xcc'],
  ['"ilo" inside another word is not iLO', { rootVendor: 'Kilowatt Systems' }, 'generic'],
]; // prettier-ignore

describe('detectProfile', () => {
  it.each(DETECTION)('%s → %s', (_name, facts, expected) => {
    const d = detectProfile(facts);
    expect(d.profile.id).toBe(expected);
    expect(d.reason.length).toBeGreaterThan(0);
  });
});

describe('the profile table', () => {
  it('has one row per id, keyed by its own id', () => {
    expect(Object.keys(PROFILES).sort()).toEqual([...PROFILE_IDS].sort());
    for (const id of PROFILE_IDS) expect(PROFILES[id].id).toBe(id);
  });

  it('gives every quirk a published source', () => {
    for (const id of PROFILE_IDS) {
      expect(PROFILES[id].quirks.length, id).toBeGreaterThan(0);
      for (const q of PROFILES[id].quirks) {
        expect(q.what.length, id).toBeGreaterThan(10);
        expect(q.source.length, id).toBeGreaterThan(5);
      }
    }
  });

  // The quirks as data: what each row changes from the generic one.
  const DIFFERENCES: [ProfileId, Partial<Record<keyof (typeof PROFILES)['generic'], unknown>>][] = [
    ['generic', {}],
    ['dell-idrac', { mediaUnder: 'system' }],
    [
      'dell-idrac10',
      {
        mediaUnder: 'system',
        slotIds: ['1'],
        auth: 'session-only',
        bootOverrideAt: 'settings',
        powerOnConflictWindowMs: 75_000,
      },
    ],
    ['hpe-ilo', {}],
    ['hpe-ilo7', { httpsImageOnly: true }],
    ['supermicro', { insertFlags: false, cdTargets: ['UsbCd', 'Cd'], fullBootRequest: true }],
    ['lenovo-xcc', { insertMethod: 'patch', ejectMethod: 'patch' }],
    ['cisco', {}],
    ['transfer-stream', { transferFields: true }],
    ['ami', { fullBootRequest: true }],
  ];
  it.each(DIFFERENCES)('%s differs from generic in exactly %j', (id, diff) => {
    const { id: _a, label: _b, quirks: _c, ...row } = PROFILES[id];
    const { id: _d, label: _e, quirks: _f, ...generic } = PROFILES.generic;
    const changed = Object.fromEntries(
      Object.entries(row).filter(
        ([k, v]) => JSON.stringify(v) !== JSON.stringify((generic as Record<string, unknown>)[k]),
      ),
    );
    expect(changed).toEqual(diff);
  });
});
