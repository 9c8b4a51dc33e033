// Vendor profiles: what differs between BMCs when mounting virtual media and booting from it, as
// one table with the published reason for each quirk — never an if-chain through the client.
// Detection from the service root and the Manager is pure and overridable (`profile` option).
//
// Every profile also gets the behaviour all BMCs need (client.ts, boot-discovery.ts): eject every
// slot holding media or claiming Inserted before inserting, fall through to the next slot on a 405
// or 400 from InsertMedia, adjust the payload when a 400 names a parameter (insert-payload.ts),
// look for VirtualMedia under the System and under the Managers.
// Does NOT: talk to a BMC. Next: slot-plan.ts, insert-payload.ts, boot-override.ts read the rows.

import type { AuthPolicy } from './session-auth.js';

export const PROFILE_IDS = [
  'generic',
  'dell-idrac',
  'dell-idrac10',
  'hpe-ilo',
  'hpe-ilo7',
  'supermicro',
  'lenovo-xcc',
  'cisco',
  'transfer-stream',
  'ami',
] as const;
export type ProfileId = (typeof PROFILE_IDS)[number];

export interface Quirk {
  what: string;
  /** Where the fact was published (tracker, source file, vendor document). */
  source: string;
}

export interface VendorProfile {
  id: ProfileId;
  label: string;
  /** How media gets into a slot: the InsertMedia action, or a PATCH of the slot resource. */
  insertMethod: 'action' | 'patch';
  /** An InsertMedia body carries `Inserted: true, WriteProtected: true` (a PATCH always does). */
  insertFlags: boolean;
  /** An InsertMedia body carries `TransferProtocolType` (from the URL scheme) and `TransferMethod: Stream`. */
  transferFields: boolean;
  /** How media leaves a slot: the EjectMedia action, or a PATCH `{Image: null, Inserted: false}`. */
  ejectMethod: 'action' | 'patch';
  /** Which VirtualMedia collection is tried first when a BMC has both. */
  mediaUnder: 'system' | 'manager';
  /** Only slots with these Ids take an insert; undefined = any CD/DVD slot. */
  slotIds: readonly string[] | undefined;
  /** The BMC mounts only https:// images. */
  httpsImageOnly: boolean;
  /** Boot override targets that boot virtual media, in order of preference (filtered by the System's allowable values). */
  cdTargets: readonly string[];
  /** How calls authenticate: a session where offered (else Basic), sessions only, or Basic only. */
  auth: AuthPolicy;
  /**
   * Where the boot override is PATCHed: the System, or its `@Redfish.Settings` object (with the
   * object's ETag as If-Match) when the System names one.
   */
  bootOverrideAt: 'system' | 'settings';
  /** Send Enabled, Target and Mode every time, even when the System does not show the mode. */
  fullBootRequest: boolean;
  /** A power-on answered 409 within this long is sent again (limits.ts POWER_ON_CONFLICT_INTERVAL_MS). */
  powerOnConflictWindowMs: number | undefined;
  quirks: readonly Quirk[];
}

const GENERIC: VendorProfile = {
  id: 'generic',
  label: 'DMTF Redfish (no known quirks)',
  insertMethod: 'action',
  insertFlags: true,
  transferFields: false,
  ejectMethod: 'action',
  mediaUnder: 'manager',
  slotIds: undefined,
  httpsImageOnly: false,
  cdTargets: ['Cd'],
  auth: 'prefer-session',
  bootOverrideAt: 'system',
  fullBootRequest: false,
  powerOnConflictWindowMs: undefined,
  quirks: [
    {
      what: 'InsertMedia with Image, Inserted and WriteProtected, as in the DMTF schema; EjectMedia with an empty JSON body',
      source: 'DMTF VirtualMedia v1.3 schema; sushy virtual_media.py (iLO needs a body on EjectMedia)',
    },
    {
      what: 'a Redfish session where the service root advertises one (X-Auth-Token), Basic where it does not; one session per BMC, DELETEd on every exit, since leaked sessions lock a BMC out',
      source:
        'DSP0266 (sessions and Basic); check_redfish PR 198 (three leak paths); badfish issue 447 (RAC0218 lockout)',
    },
    {
      what: 'a session POST answered 503 with IDRAC.2.x.RAC0218 "maximum number of user sessions": waited for within SESSION_LIMIT_WAIT_MS',
      source: 'gofish issue 75 and check_redfish issue 89 (the 503 body)',
    },
    {
      what: 'an EjectMedia refused on a slot that turns out to be empty is not a failure (older iLOs refuse ejecting an empty slot)',
      source: 'bmclib PRs 406 and 410',
    },
  ],
};

/** One row per profile. Order does not matter; detection rules are below. */
export const PROFILES: Readonly<Record<ProfileId, VendorProfile>> = {
  generic: GENERIC,
  'dell-idrac': {
    ...GENERIC,
    id: 'dell-idrac',
    label: 'Dell iDRAC 8/9',
    mediaUnder: 'system',
    quirks: [
      {
        what: 'reports a stale Inserted: true with the old image, and refuses InsertMedia on an attached slot: eject every slot first',
        source: 'issue 27; bmclib redfishwrapper/virtual_media.go (ejects before inserting); Ironic redfish/boot.py',
      },
      {
        what: 'from firmware 6.00.02 VirtualMedia is listed under the System (/Systems/System.Embedded.1/VirtualMedia), not the Manager',
        source: 'Ironic redfish/boot.py _has_vmedia_via_systems; bmclib getVirtualMedia falls back to the System',
      },
      {
        what: 'a just-issued eject may still be running: the next call answers 500, retried',
        source: 'Ironic storyboard 2008504 (retry 3 times, 3 s apart)',
      },
    ],
  },
  'dell-idrac10': {
    ...GENERIC,
    id: 'dell-idrac10',
    label: 'Dell iDRAC 10 (17G and later)',
    mediaUnder: 'system',
    slotIds: ['1'],
    auth: 'session-only',
    bootOverrideAt: 'settings',
    // ~60 s observed, plus a margin for a slow BMC.
    powerOnConflictWindowMs: 75_000,
    quirks: [
      {
        what: 'firmware 1.30.10.50 and later refuse HTTP Basic: only Redfish sessions (X-Auth-Token) work, so Basic is never tried',
        source: 'issue 33; Dell iDRAC10 1.30.10.50 release notes (Basic authentication disabled by default)',
      },
      {
        what: 'Boot is read-only on the System: the boot override is PATCHed to its @Redfish.Settings SettingsObject with that object’s ETag as If-Match',
        source: 'gofish PR 511 (SetBoot uses the settings target, iDRAC10); MAAS PR 477 (LP 2160731)',
      },
      {
        what: 'a power-on answers 409 for up to ~60 s after a power-off: sent again within powerOnConflictWindowMs',
        source: 'issue 33',
      },
      {
        what: 'virtual media for booting must go to slot 1',
        source: 'Ironic drac/boot.py _get_acceptable_media_id (Manager Model "17G Monolithic" → iDRAC 10 → slot "1")',
      },
      {
        what: 'VirtualMedia under the System; stale Inserted until ejected (as iDRAC 9)',
        source: 'Ironic redfish/boot.py',
      },
    ],
  },
  'hpe-ilo': {
    ...GENERIC,
    id: 'hpe-ilo',
    label: 'HPE iLO 5/6',
    quirks: [
      {
        what: 'EjectMedia without a JSON body answers 415/400: always send {}',
        source: 'sushy resources/manager/virtual_media.py eject_media',
      },
    ],
  },
  'hpe-ilo7': {
    ...GENERIC,
    id: 'hpe-ilo7',
    label: 'HPE iLO 7',
    httpsImageOnly: true,
    quirks: [
      {
        what: 'mounts virtual media only from HTTPS URLs',
        source: 'HPE iLO 7 user guide, virtual media (cited in tinkerbell/tinkerbell#304)',
      },
      { what: 'EjectMedia needs a JSON body, as iLO 5', source: 'sushy virtual_media.py eject_media' },
    ],
  },
  supermicro: {
    ...GENERIC,
    id: 'supermicro',
    label: 'Supermicro X11/X12',
    insertFlags: false,
    fullBootRequest: true,
    cdTargets: ['UsbCd', 'Cd'],
    quirks: [
      {
        what: 'InsertMedia answers an error when the body carries Inserted or WriteProtected',
        source: 'sushy virtual_media.py insert_media (NOTE janders, SuperMicro X11/X12); bmclib tries Image alone last',
      },
      {
        what: 'virtual media appears as a USB CD: only boot override target UsbCd boots it, Cd does not — on boards that list UsbCd; boards whose AllowableValues list only Cd get Cd',
        source:
          'sushy resources/system/system.py set_system_boot_options (NOTE janders); issue 33 (some boards want Cd)',
      },
      {
        what: 'forgets BootSourceOverrideMode unless it is sent with every boot override',
        source: 'DMTF Redfishtool PR 106',
      },
    ],
  },
  'lenovo-xcc': {
    ...GENERIC,
    id: 'lenovo-xcc',
    label: 'Lenovo XClarity Controller',
    insertMethod: 'patch',
    ejectMethod: 'patch',
    quirks: [
      {
        what: 'media is set by PATCH of the slot with Image, Inserted and WriteProtected (the action may be missing); without Inserted nothing is attached',
        source: 'sushy virtual_media.py insert_media (Lenovo SD530 note); bmclib notes on Lenovo XCC',
      },
    ],
  },
  cisco: {
    ...GENERIC,
    id: 'cisco',
    label: 'Cisco CIMC (UCS)',
    quirks: [
      {
        what: 'some slots are for the vKVM only and answer 400 to InsertMedia; CD requests may need a DVD-only slot',
        source: 'Ironic redfish/boot.py (launchpad bugs 2031595, 2039042)',
      },
      {
        what: 'slots without remote-media support answer 405 or lack the InsertMedia action (Cisco C845A M8)',
        source: 'Ironic redfish/boot.py _insert_vmedia_in_resource',
      },
    ],
  },
  'transfer-stream': {
    ...GENERIC,
    id: 'transfer-stream',
    label: 'BMCs requiring TransferProtocolType and TransferMethod',
    transferFields: true,
    quirks: [
      {
        what: 'InsertMedia answers ActionParameterMissing naming #/TransferProtocolType unless the body gives it (HTTP/HTTPS from the URL)',
        source: 'sushy virtual_media.py is_transfer_protocol_required',
      },
      {
        what: 'InsertMedia needs TransferMethod: Stream (the image is read in place, not uploaded)',
        source: 'DMTF VirtualMedia v1.3 schema (TransferMethod); issue 27',
      },
    ],
  },
  ami: {
    ...GENERIC,
    id: 'ami',
    label: 'AMI MegaRAC (ASRockRack and other AMI-based BMCs)',
    fullBootRequest: true,
    quirks: [
      {
        what: 'the boot override needs the full request every time (BootSourceOverrideEnabled, Target and Mode); a PATCH of one of them resets the others',
        source: 'DMTF Redfishtool PR 106; Redfish-Tacklebox issues 111 and 144 (AMI, ASRock boards)',
      },
    ],
  },
};

/** What detection reads, all from the service root, the Manager and the System. */
export interface DetectionFacts {
  rootVendor?: string | undefined;
  rootProduct?: string | undefined;
  rootOemVendors?: readonly string[];
  managerModel?: string | undefined;
  managerFirmware?: string | undefined;
  systemManufacturer?: string | undefined;
}

export interface Detection {
  profile: VendorProfile;
  /** Which facts decided, in words. */
  reason: string;
}

type Vendor = 'dell' | 'hpe' | 'supermicro' | 'lenovo' | 'cisco' | 'ami';

/** Spellings of each vendor in Vendor, Oem keys, Product, Manufacturer (lower case, word-ish match). */
const VENDOR_PATTERNS: readonly [Vendor, RegExp][] = [
  ['dell', /\bdell\b|\bidrac\b/],
  ['hpe', /\bhpe?\b|hewlett|\bilo\b/],
  ['supermicro', /supermicro|super micro/],
  ['lenovo', /lenovo|xclarity|\bxcc\b/],
  ['cisco', /cisco|\bcimc\b/],
  ['ami', /\bami\b|american megatrends|megarac|asrock/],
];

function vendorOf(facts: DetectionFacts): { vendor: Vendor; from: string } | undefined {
  const sources: [string, string | undefined][] = [
    ['service root Vendor', facts.rootVendor],
    ['service root Oem', facts.rootOemVendors?.join(' ')],
    ['service root Product', facts.rootProduct],
    ['System Manufacturer', facts.systemManufacturer],
    ['Manager Model', facts.managerModel],
  ];
  for (const [from, value] of sources) {
    if (!value) continue;
    const text = value.toLowerCase();
    for (const [vendor, pattern] of VENDOR_PATTERNS)
      if (pattern.test(text)) return { vendor, from: `${from} ${JSON.stringify(value)}` };
  }
  return undefined;
}

/** iDRAC generation from the Manager Model ("14G Monolithic" → 14); undefined when it is not that shape. */
function dellGeneration(model: string | undefined): number | undefined {
  const m = /^(\d{2})G\b/.exec(model ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Servers of the 17th generation and later carry iDRAC 10 (Ironic drac/boot.py). */
const FIRST_IDRAC10_GENERATION = 17;

export function detectProfile(facts: DetectionFacts): Detection {
  const found = vendorOf(facts);
  if (!found) return { profile: PROFILES.generic, reason: 'no known vendor in the service root, System or Manager' };
  const { vendor, from } = found;
  switch (vendor) {
    case 'dell': {
      const generation = dellGeneration(facts.managerModel);
      if (generation !== undefined && generation >= FIRST_IDRAC10_GENERATION) {
        return {
          profile: PROFILES['dell-idrac10'],
          reason: `${from}; Manager Model ${JSON.stringify(facts.managerModel)} is iDRAC 10`,
        };
      }
      return { profile: PROFILES['dell-idrac'], reason: from };
    }
    case 'hpe': {
      const ilo7 = [facts.managerModel, facts.managerFirmware].some((v) => /\bilo\s*7\b/i.test(v ?? ''));
      if (ilo7) return { profile: PROFILES['hpe-ilo7'], reason: `${from}; the Manager is iLO 7` };
      return { profile: PROFILES['hpe-ilo'], reason: from };
    }
    case 'supermicro':
      return { profile: PROFILES.supermicro, reason: from };
    case 'lenovo':
      return { profile: PROFILES['lenovo-xcc'], reason: from };
    case 'cisco':
      return { profile: PROFILES.cisco, reason: from };
    case 'ami':
      return { profile: PROFILES.ami, reason: from };
  }
}

export function isProfileId(value: string): value is ProfileId {
  return (PROFILE_IDS as readonly string[]).includes(value);
}
