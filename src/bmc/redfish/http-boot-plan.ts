// UEFI HTTP Boot through the BMC: which writes make the host's next boot read `url` over HTTP, per
// vendor, decided before anything is written. Pure, tested as a table (http-boot-plan.test.ts).
//
//   standard (`boot-uri`):  PATCH <System> {"Boot": {"BootSourceOverrideEnabled": "Once",
//                             "BootSourceOverrideTarget": "UefiHttp", "BootSourceOverrideMode": "UEFI",
//                             "HttpBootUri": url}}
//   Dell iDRAC (`dell-bios`): PATCH <Bios/Settings> {"Attributes": {"HttpDev1EnDis": "Enabled",
//                             "HttpDev1Uri": url, "HttpDev1TlsMode": "None" | "OneWay"}}, then POST
//                             <Manager>/Jobs {"TargetSettingsURI": <Bios/Settings>} (applied at the
//                             next reset), then the one-time UefiHttp override without a URI
//   HPE iLO (`hpe-bios`):   PATCH <Bios/Settings> {"Attributes": {"UrlBootFile": url}} (applied at
//                             the next reset), then the UefiHttp override — unless the System shows
//                             HttpBootUri, then the standard way
//
// Each vendor fact is cited in HTTP_BOOT_VENDORS. Anything the BMC does not list (no UefiHttp
// target, no vendor attribute, a Legacy boot mode, a TLS mode the URL cannot use) is a RedfishError
// `unsupported` (→ 422) naming the BMC, thrown before the first write.
// Does NOT: call the BMC (client.ts reads the System and Bios, and sends the plan), or choose the
// URL (the job hands the ISO's short-token URL; ../jobs/job-token.ts).
import type { BootMode } from './boot-override.js';
import { RedfishError } from './errors.js';
import type { ProfileId, Quirk } from './profiles.js';
import type { BiosInfo, SystemInfo } from './resources.js';

export const BOOT_METHODS = ['virtual-media', 'http'] as const;
export type BootMethod = (typeof BOOT_METHODS)[number];

export type HttpBootWay = 'boot-uri' | 'dell-bios' | 'hpe-bios';

export interface HttpBootVendor {
  way: HttpBootWay;
  quirks: readonly Quirk[];
}

const STANDARD: HttpBootVendor = {
  way: 'boot-uri',
  quirks: [
    {
      what: 'UEFI HTTP Boot from a URL the BMC pins: BootSourceOverrideTarget UefiHttp with Boot.HttpBootUri (no DHCP boot file needed)',
      source:
        'DMTF ComputerSystem v1.9 (HttpBootUri); NVIDIA/libredfish#74 (standard PATCH for Supermicro, AMI, HPE, NVIDIA); Ironic redfish-https boot interface (ironic/drivers/modules/redfish/boot.py RedfishHttpsBoot); metal3-io/metal3-docs#459 (redfish-uefihttp)',
    },
  ],
};

const DELL: HttpBootVendor = {
  way: 'dell-bios',
  quirks: [
    {
      what: 'iDRAC takes the HTTP boot URI only as BIOS attributes HttpDev1EnDis / HttpDev1Uri / HttpDev1TlsMode, staged in Bios/Settings and applied by a BIOS configuration job at the next reset',
      source:
        'NVIDIA/libredfish#74 (Dell needs the HttpDev1Uri BIOS attribute path); dell/iDRAC-Redfish-Scripting (Bios/Settings PATCH, POST Managers/iDRAC.Embedded.1/Jobs with TargetSettingsURI)',
    },
    {
      what: 'HttpDev1TlsMode defaults to a TLS mode that refuses plain http:// URIs: None for http, OneWay for https',
      source:
        'rackerlabs/understack understack_workflows (HttpDev1TlsMode None "as ironic returns http URLs"); issue 33',
    },
  ],
};

const HPE: HttpBootVendor = {
  way: 'hpe-bios',
  quirks: [
    {
      what: 'iLO 5 takes the HTTP boot URL as the UrlBootFile BIOS attribute (Bios/Settings, applied at the next reset); iLO 6 and later also take Boot.HttpBootUri',
      source:
        'HPE iLOrest / ilo-sdk BiosHelper set_url_boot_file (PATCH Systems/1/bios/Settings UrlBootFile); NVIDIA/libredfish#74 (HPE through the standard Boot PATCH)',
    },
  ],
};

/** Profiles not listed use the standard way (when their System lists UefiHttp). */
export const HTTP_BOOT_VENDORS: Partial<Record<ProfileId, HttpBootVendor>> = {
  'dell-idrac': DELL,
  'dell-idrac10': DELL,
  'hpe-ilo': HPE,
  'hpe-ilo7': HPE,
};

export function httpBootVendor(profile: ProfileId): HttpBootVendor {
  return HTTP_BOOT_VENDORS[profile] ?? STANDARD;
}

export interface PlannedWrite {
  method: 'PATCH' | 'POST';
  path: string;
  body: Record<string, unknown>;
  ifMatch?: string;
}

export interface HttpBootPlan {
  way: HttpBootWay;
  /** BIOS writes before the override (staged settings, the Dell job); empty for the standard way. */
  stage: PlannedWrite[];
  /** The one-time UefiHttp override, sent after the stage writes. */
  override: PlannedWrite;
}

/** iDRAC's HTTP boot device 1 attributes: all three must be in its Bios. */
const DELL_ATTRIBUTES = ['HttpDev1EnDis', 'HttpDev1Uri', 'HttpDev1TlsMode'] as const;

export interface HttpBootFacts {
  profile: ProfileId;
  system: SystemInfo;
  /** The System's Bios (read only for the BIOS ways); undefined when the System has none. */
  bios?: BiosInfo | undefined;
  /** The Manager whose Jobs collection takes the Dell job. */
  managerPath?: string | undefined;
}

/**
 * Checks and plans. `bios` is needed for the BIOS ways only; without it a BIOS way fails
 * `unsupported` (the System links no Bios). Throws before anything is written.
 */
export function planHttpBoot(bmc: string, facts: HttpBootFacts, url: string, mode: BootMode): HttpBootPlan {
  const fail = (why: string): never => {
    throw new RedfishError({ bmc, step: 'http-boot', failure: 'unsupported' }, `HTTP boot: ${why}`);
  };
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    return fail('the boot URL does not parse');
  }
  if (scheme !== 'http:' && scheme !== 'https:') fail(`the boot URL must be http:// or https://, not ${scheme}`);
  if (mode !== 'UEFI') fail(`UEFI HTTP Boot needs boot mode UEFI, not ${mode} (set the BMC's boot_mode to UEFI)`);
  const { system } = facts;
  const modes = system.boot.allowedModes;
  if (modes && !modes.includes('UEFI')) fail(`the System allows boot modes ${modes.join(', ') || '(none)'}, not UEFI`);
  const targets = system.boot.allowedTargets;
  const listsUefiHttp = targets?.includes('UefiHttp') ?? false;
  const vendor = httpBootVendor(facts.profile);
  const override = (withUri: boolean): PlannedWrite => ({
    method: 'PATCH',
    path: system.path,
    body: {
      Boot: {
        BootSourceOverrideEnabled: 'Once',
        BootSourceOverrideTarget: 'UefiHttp',
        BootSourceOverrideMode: 'UEFI',
        ...(withUri ? { HttpBootUri: url } : {}),
      },
    },
    ...(system.etag ? { ifMatch: system.etag } : {}),
  });
  const notListed = `the System lists no UefiHttp boot target (allows ${targets?.join(', ') || 'none listed'})`;

  // The standard way: the System shows HttpBootUri (HPE iLO 6+ too), or the profile knows no other.
  if (vendor.way === 'boot-uri' || (vendor.way === 'hpe-bios' && system.boot.hasHttpBootUri)) {
    if (!listsUefiHttp && !(targets === undefined && system.boot.hasHttpBootUri))
      fail(`${notListed} and no vendor BIOS attribute is known for this profile (${facts.profile})`);
    return { way: 'boot-uri', stage: [], override: override(true) };
  }
  if (targets !== undefined && !listsUefiHttp) fail(notListed);
  const bios = facts.bios;
  if (!bios)
    return fail(`the ${facts.profile} profile sets the URI through BIOS attributes, and the System links no Bios`);
  const settingsPath = bios.settingsRef ?? `${bios.path.replace(/\/$/, '')}/Settings`;
  const has = (name: string): boolean => name in bios.attributes;

  if (vendor.way === 'dell-bios') {
    const missing = DELL_ATTRIBUTES.filter((a) => !has(a));
    if (missing.length > 0) fail(`the Bios lists no ${missing.join(', ')} (iDRAC HTTP boot device 1)`);
    if (!facts.managerPath) fail('no Manager to create the BIOS configuration job on');
    return {
      way: 'dell-bios',
      stage: [
        {
          method: 'PATCH',
          path: settingsPath,
          body: {
            Attributes: {
              HttpDev1EnDis: 'Enabled',
              HttpDev1Uri: url,
              HttpDev1TlsMode: scheme === 'https:' ? 'OneWay' : 'None',
            },
          },
        },
        {
          method: 'POST',
          path: `${facts.managerPath!.replace(/\/$/, '')}/Jobs`,
          body: { TargetSettingsURI: settingsPath },
        },
      ],
      override: override(false),
    };
  }
  if (!has('UrlBootFile')) fail('the Bios lists no UrlBootFile attribute and the System shows no HttpBootUri');
  return {
    way: 'hpe-bios',
    stage: [{ method: 'PATCH', path: settingsPath, body: { Attributes: { UrlBootFile: url } } }],
    override: override(false),
  };
}

/**
 * Whether a BMC can HTTP-boot, from what its stored inventory lists (the API's check before a
 * job is queued): undefined when it can or when nothing is known yet, else why not.
 */
export function httpBootRefusal(profile: ProfileId, allowedTargets: readonly string[] | undefined): string | undefined {
  if (allowedTargets === undefined || allowedTargets.includes('UefiHttp')) return undefined;
  const vendor = httpBootVendor(profile);
  return vendor.way === 'boot-uri'
    ? `the System lists no UefiHttp boot target (allows ${allowedTargets.join(', ') || 'none'}) and no vendor BIOS attribute is known for profile ${profile}`
    : `the System lists no UefiHttp boot target (allows ${allowedTargets.join(', ') || 'none'})`;
}

/** The override cleared after the boot: nothing pending for the next power-on. */
export function clearOverrideBody(): Record<string, unknown> {
  return { Boot: { BootSourceOverrideEnabled: 'Disabled', BootSourceOverrideTarget: 'None' } };
}

/**
 * A BMC without a chosen method (`auto`): virtual media when it has a slot for it (the path every
 * profile has been proven on), HTTP boot when it has none and lists UefiHttp; else virtual media,
 * whose own error then says there is no slot.
 */
export function defaultBootMethod(facts: {
  profile: ProfileId;
  virtualMediaSlots: number;
  allowedTargets: readonly string[] | undefined;
}): BootMethod {
  if (facts.virtualMediaSlots > 0) return 'virtual-media';
  return facts.allowedTargets?.includes('UefiHttp') ? 'http' : 'virtual-media';
}
