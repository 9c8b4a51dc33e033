import { describe, expect, it } from 'vitest';
import { statusForError } from '../../error-status.js';
import { RedfishError } from './errors.js';
import {
  defaultBootMethod,
  type HttpBootFacts,
  httpBootRefusal,
  planHttpBoot,
  type PlannedWrite,
} from './http-boot-plan.js';
import type { ProfileId } from './profiles.js';
import type { BiosInfo } from './resources.js';
import { system } from './test-support/builders.js';

const URL_HTTP = 'http://10.0.0.1:8080/i/AbC123/minimal.iso';
const URL_HTTPS = 'https://10.0.0.1:8443/i/AbC123/minimal.iso';
const WITH_UEFI_HTTP = ['None', 'Pxe', 'Cd', 'Hdd', 'UefiHttp'];
const DELL_SYSTEM = system(
  { path: '/redfish/v1/Systems/System.Embedded.1', etag: '"7"' },
  { allowedTargets: WITH_UEFI_HTTP },
);
const DELL_BIOS: BiosInfo = {
  path: '/redfish/v1/Systems/System.Embedded.1/Bios',
  attributes: { HttpDev1EnDis: 'Disabled', HttpDev1Uri: '', HttpDev1TlsMode: 'OneWay', BootMode: 'Uefi' },
  settingsRef: '/redfish/v1/Systems/System.Embedded.1/Bios/Settings',
};
const HPE_BIOS: BiosInfo = {
  path: '/redfish/v1/Systems/1/Bios',
  attributes: { UrlBootFile: '' },
  settingsRef: undefined,
};
const DELL_MANAGER = '/redfish/v1/Managers/iDRAC.Embedded.1';

function override(path: string, uri: string | undefined, ifMatch?: string): PlannedWrite {
  return {
    method: 'PATCH',
    path,
    body: {
      Boot: {
        BootSourceOverrideEnabled: 'Once',
        BootSourceOverrideTarget: 'UefiHttp',
        BootSourceOverrideMode: 'UEFI',
        ...(uri ? { HttpBootUri: uri } : {}),
      },
    },
    ...(ifMatch ? { ifMatch } : {}),
  };
}

const dellStage = (url: string, tls: string): PlannedWrite[] => [
  {
    method: 'PATCH',
    path: '/redfish/v1/Systems/System.Embedded.1/Bios/Settings',
    body: { Attributes: { HttpDev1EnDis: 'Enabled', HttpDev1Uri: url, HttpDev1TlsMode: tls } },
  },
  {
    method: 'POST',
    path: `${DELL_MANAGER}/Jobs`,
    body: { TargetSettingsURI: '/redfish/v1/Systems/System.Embedded.1/Bios/Settings' },
  },
];

const facts = (profile: ProfileId, extra: Partial<HttpBootFacts> = {}): HttpBootFacts => ({
  profile,
  system: system({}, { allowedTargets: WITH_UEFI_HTTP, hasHttpBootUri: true }),
  ...extra,
});

const PLANS: [string, HttpBootFacts, string, string, PlannedWrite[], PlannedWrite][] = [
  ['generic: UefiHttp + HttpBootUri', facts('generic'), URL_HTTP, 'boot-uri', [], override('/redfish/v1/Systems/1', URL_HTTP)],
  ['Supermicro: the same standard PATCH', facts('supermicro'), URL_HTTP, 'boot-uri', [], override('/redfish/v1/Systems/1', URL_HTTP)],
  ['ETag → If-Match on the override', facts('generic', { system: system({ etag: '"3"' }, { allowedTargets: WITH_UEFI_HTTP }) }), URL_HTTP,
    'boot-uri', [], override('/redfish/v1/Systems/1', URL_HTTP, '"3"')],
  ['no allowable targets listed, HttpBootUri shown → standard', facts('generic', { system: system({}, { allowedTargets: undefined, hasHttpBootUri: true }) }),
    URL_HTTP, 'boot-uri', [], override('/redfish/v1/Systems/1', URL_HTTP)],
  ['Dell, http URL: TLS mode None, BIOS job, override without a URI', { profile: 'dell-idrac', system: DELL_SYSTEM, bios: DELL_BIOS, managerPath: DELL_MANAGER },
    URL_HTTP, 'dell-bios', dellStage(URL_HTTP, 'None'), override(DELL_SYSTEM.path, undefined, '"7"')],
  ['Dell, https URL: TLS mode OneWay', { profile: 'dell-idrac10', system: DELL_SYSTEM, bios: DELL_BIOS, managerPath: DELL_MANAGER },
    URL_HTTPS, 'dell-bios', dellStage(URL_HTTPS, 'OneWay'), override(DELL_SYSTEM.path, undefined, '"7"')],
  ['HPE iLO 5 (no HttpBootUri): UrlBootFile in Bios/Settings', { profile: 'hpe-ilo', system: system({}, { allowedTargets: WITH_UEFI_HTTP }), bios: HPE_BIOS },
    URL_HTTP, 'hpe-bios', [{ method: 'PATCH', path: '/redfish/v1/Systems/1/Bios/Settings', body: { Attributes: { UrlBootFile: URL_HTTP } } }],
    override('/redfish/v1/Systems/1', undefined)],
  ['HPE iLO showing HttpBootUri: the standard way', facts('hpe-ilo'), URL_HTTP, 'boot-uri', [], override('/redfish/v1/Systems/1', URL_HTTP)],
]; // prettier-ignore

describe('planHttpBoot', () => {
  it.each(PLANS)('%s', (_name, f, url, way, stage, expected) => {
    const plan = planHttpBoot('b1', f, url, 'UEFI');
    expect(plan.way).toBe(way);
    expect(plan.stage).toEqual(stage);
    expect(plan.override).toEqual(expected);
  });

  const REFUSED: [string, HttpBootFacts, string, 'UEFI' | 'Legacy', RegExp][] = [
    ['no UefiHttp and no vendor attribute', facts('lenovo-xcc', { system: system({}, { allowedTargets: ['None', 'Pxe', 'Cd'] }) }), URL_HTTP, 'UEFI',
      /lists no UefiHttp boot target \(allows None, Pxe, Cd\) and no vendor BIOS attribute is known for this profile \(lenovo-xcc\)/],
    ['Legacy boot mode', facts('generic'), URL_HTTP, 'Legacy', /needs boot mode UEFI, not Legacy/],
    ['a Legacy-only System', facts('generic', { system: system({}, { allowedTargets: WITH_UEFI_HTTP, allowedModes: ['Legacy'] }) }), URL_HTTP, 'UEFI',
      /allows boot modes Legacy, not UEFI/],
    ['not an http(s) URL', facts('generic'), 'tftp://10.0.0.1/x.iso', 'UEFI', /must be http:\/\/ or https:\/\/, not tftp:/],
    ['Dell without a Bios link', { profile: 'dell-idrac', system: DELL_SYSTEM, managerPath: DELL_MANAGER }, URL_HTTP, 'UEFI', /System links no Bios/],
    ['Dell whose Bios lacks HttpDev1TlsMode', { profile: 'dell-idrac', system: DELL_SYSTEM, managerPath: DELL_MANAGER,
      bios: { ...DELL_BIOS, attributes: { HttpDev1EnDis: 'Disabled', HttpDev1Uri: '' } } }, URL_HTTP, 'UEFI', /Bios lists no HttpDev1TlsMode/],
    ['Dell whose System lists no UefiHttp', { profile: 'dell-idrac', system: system({}, { allowedTargets: ['None', 'Cd'] }), bios: DELL_BIOS,
      managerPath: DELL_MANAGER }, URL_HTTP, 'UEFI', /lists no UefiHttp boot target \(allows None, Cd\)/],
    ['HPE without UrlBootFile nor HttpBootUri', { profile: 'hpe-ilo', system: system({}, { allowedTargets: WITH_UEFI_HTTP }),
      bios: { ...HPE_BIOS, attributes: {} } }, URL_HTTP, 'UEFI', /no UrlBootFile attribute/],
  ]; // prettier-ignore
  it.each(REFUSED)('%s → unsupported (422), naming the BMC', (_name, f, url, mode, why) => {
    let caught: unknown;
    try {
      planHttpBoot('rack7-b3', f, url, mode);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RedfishError);
    const err = caught as RedfishError;
    expect(err.details.failure).toBe('unsupported');
    expect(err.kind).toBe('unprocessable');
    expect(statusForError(err)).toBe(422);
    expect(err.message).toMatch(why);
    expect(err.message).toContain('rack7-b3');
  });
});

describe('httpBootRefusal (the API check on a stored inventory)', () => {
  it('nothing known yet, or UefiHttp listed → allowed', () => {
    expect(httpBootRefusal('generic', undefined)).toBeUndefined();
    expect(httpBootRefusal('generic', WITH_UEFI_HTTP)).toBeUndefined();
  });
  it('no UefiHttp listed → the reason', () => {
    expect(httpBootRefusal('generic', ['None', 'Cd'])).toMatch(/no UefiHttp boot target \(allows None, Cd\)/);
    expect(httpBootRefusal('dell-idrac', ['None', 'Cd'])).toMatch(/no UefiHttp boot target/);
  });
});

describe('defaultBootMethod (auto)', () => {
  it('virtual media when there is a slot; HTTP boot when none and UefiHttp is listed', () => {
    expect(defaultBootMethod({ profile: 'generic', virtualMediaSlots: 2, allowedTargets: WITH_UEFI_HTTP })).toBe(
      'virtual-media',
    );
    expect(defaultBootMethod({ profile: 'generic', virtualMediaSlots: 0, allowedTargets: WITH_UEFI_HTTP })).toBe(
      'http',
    );
    expect(defaultBootMethod({ profile: 'generic', virtualMediaSlots: 0, allowedTargets: ['Cd'] })).toBe(
      'virtual-media',
    );
  });
});
