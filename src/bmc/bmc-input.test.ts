// The BMC side's input rules, views and settings as tables: each bad field a 400 naming it (never
// echoing a password), addresses normalized by phase 1's parser, a job request's fields; the
// state a BMC shows from its last job, an inventory view with slot images redacted; the settings
// picked out of a whole Config.
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../errors.js';
import { parseBmcBody, parseJobBody } from './bmc-input.js';
import { bmcState, renderInventory } from './bmc-view.js';
import { bmcSettingsOf, DEFAULT_BMC_SETTINGS } from './settings.js';
import type { JobRecord } from './store/records.js';

const BASE = { name: 'n1', address: 'bmc.example.com', username: 'root', password: 'pw-secret' };

describe('parseBmcBody', () => {
  it('normalizes the address and fills nothing it was not given', () => {
    expect(parseBmcBody(BASE, 'create')).toEqual({
      name: 'n1',
      address: 'https://bmc.example.com/redfish/v1',
      username: 'root',
      password: 'pw-secret',
    });
    expect(parseBmcBody({ address: 'redfish+http://10.0.0.5:8000/redfish/v1/Systems/1/' }, 'update')).toEqual({
      address: 'http://10.0.0.5:8000/redfish/v1/Systems/1',
    });
    expect(parseBmcBody({ profile: 'auto', infra_env_id: null, ca_pem: null }, 'update')).toEqual({
      profile: null,
      infraEnvId: null,
      caPem: null,
    });
  });

  it.each<[string, unknown, string]>([
    ['not an object', [], 'body: must be a JSON object'],
    ['name with a space', { ...BASE, name: 'a b' }, 'name: must be 1 to 63'],
    ['name too long', { ...BASE, name: 'x'.repeat(64) }, 'name: must be 1 to 63'],
    ['credentials in the address', { ...BASE, address: 'https://root:pw@bmc/' }, 'address: the address must not carry'],
    ['another scheme', { ...BASE, address: 'ftp://bmc' }, 'address: unsupported scheme'],
    ['empty password', { ...BASE, password: '' }, 'password: must not be empty'],
    ['control characters', { ...BASE, username: 'ro\not' }, 'username: must not hold control characters'],
    ['a number for a string', { ...BASE, password: 5 }, 'password: must be a string'],
    [
      'insecure and a CA',
      { ...BASE, insecure: true, ca_pem: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----' },
      'insecure: give either',
    ],
    ['no certificate in the CA', { ...BASE, ca_pem: 'hello' }, 'ca_pem: holds no PEM certificate'],
    ['unknown profile', { ...BASE, profile: 'acme' }, 'profile: must be auto or a known profile id'],
    ['boot mode', { ...BASE, boot_mode: 'uefi' }, 'boot_mode: must be UEFI or Legacy'],
    ['eject policy', { ...BASE, eject: 'yes' }, 'eject: must be one of auto, always, never'],
    ['boot method', { ...BASE, boot_method: 'pxe' }, 'boot_method: must be one of virtual-media, http, auto'],
    ['infra_env_id', { ...BASE, infra_env_id: 'x' }, 'infra_env_id: must be a UUID'],
    ['unknown field', { ...BASE, passwd: 'x' }, 'passwd: is not a BMC field'],
    ['missing username', { name: 'n', address: 'b', password: 'p' }, 'username: is required'],
  ])('%s: 400 naming the field', (_name, body, message) => {
    let thrown: unknown;
    try {
      parseBmcBody(body, 'create');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(BadRequestError);
    expect((thrown as Error).message.startsWith(message)).toBe(true);
    expect((thrown as Error).message).not.toContain('pw-secret');
  });
});

describe('parseBmcBody boot_method', () => {
  it('http and virtual-media are kept; auto is stored as no choice (null)', () => {
    expect(parseBmcBody({ boot_method: 'http' }, 'update')).toEqual({ bootMethod: 'http' });
    expect(parseBmcBody({ boot_method: 'virtual-media' }, 'update')).toEqual({ bootMethod: 'virtual-media' });
    expect(parseBmcBody({ boot_method: 'auto' }, 'update')).toEqual({ bootMethod: null });
  });
});

describe('parseJobBody', () => {
  it.each<[unknown, ReturnType<typeof parseJobBody> | string]>([
    [{ action: 'boot-discovery' }, { action: 'boot-discovery' }],
    [
      {
        action: 'boot-discovery',
        boot_mode: 'Legacy',
        eject: 'never',
        infra_env_id: 'C0FFEE00-1234-4ABC-8DEF-00000000002A',
      },
      {
        action: 'boot-discovery',
        bootMode: 'Legacy',
        eject: 'never',
        infraEnvId: 'c0ffee00-1234-4abc-8def-00000000002a',
      },
    ],
    [{ action: 'power-reset' }, { action: 'power-reset' }],
    [{ action: 'reboot' }, 'action: must be one of boot-discovery, eject, power-on, power-off, power-reset, refresh'],
    [
      { action: 'eject', eject: 'never' },
      'action: boot_mode, boot_method, eject and infra_env_id apply to boot-discovery only',
    ],
    [
      { action: 'boot-discovery', boot_method: 'http' },
      { action: 'boot-discovery', bootMethod: 'http' },
    ],
    [{ action: 'boot-discovery', boot_method: 'auto' }, 'boot_method: must be one of virtual-media, http'],
    [{ action: 'power-on', boot_method: 'http' }, 'action: boot_mode, boot_method, eject and infra_env_id apply'],
    [{ action: 'refresh', force: true }, 'force: is not a job field'],
  ])('%j', (body, expected) => {
    if (typeof expected === 'string') expect(() => parseJobBody(body)).toThrow(expected);
    else expect(parseJobBody(body)).toEqual(expected);
  });
});

describe('bmcState', () => {
  const job = (over: Partial<JobRecord>): JobRecord =>
    ({
      action: 'boot-discovery',
      state: 'running',
      error: null,
      steps: [
        { name: 'insert', status: 'done', detail: 'inserted into slot 1' },
        { name: 'power', status: 'running', detail: '' },
      ],
      ...over,
    }) as JobRecord;
  it.each<[string, JobRecord | undefined, ReturnType<typeof bmcState>]>([
    ['no job', undefined, { state: 'new', info: 'no job yet' }],
    ['queued', job({ state: 'queued' }), { state: 'busy', info: 'boot-discovery queued' }],
    ['running', job({}), { state: 'busy', info: 'boot-discovery: power' }],
    [
      'failed',
      job({ state: 'failed', error: 'BMC "n1": power: HTTP 500' }),
      { state: 'error', info: 'BMC "n1": power: HTTP 500' },
    ],
    [
      'succeeded',
      job({ state: 'succeeded' }),
      { state: 'ready', info: 'boot-discovery succeeded: inserted into slot 1' },
    ],
  ])('%s', (_name, last, state) => expect(bmcState(last)).toEqual(state));
});

describe('renderInventory', () => {
  it('redacts the token of an image a slot shows', () => {
    const view = renderInventory({
      address: 'https://b/redfish/v1',
      profile: { id: 'generic', label: 'g', reason: 'r', overridden: false },
      vendor: undefined,
      product: undefined,
      redfishVersion: '1.11.0',
      system: {
        path: '/s',
        id: '1',
        manufacturer: 'QEMU',
        model: undefined,
        serialNumber: 'S1',
        uuid: 'u',
        powerState: 'On',
      },
      managers: [],
      macs: ['52:54:00:00:00:01'],
      boot: { enabled: 'Once', target: 'Cd', mode: 'UEFI', allowedTargets: undefined, allowedModes: undefined },
      resetTypes: undefined,
      virtualMedia: [
        {
          id: '1',
          path: '/v/1',
          location: 'manager',
          mediaTypes: ['CD'],
          inserted: true,
          image: 'https://img.example/bytoken/AbCdEfGhIjKlMnOpQrStUvWxYz012345/4.17/x86_64/full.iso',
        },
      ],
    });
    expect(view.virtual_media[0]?.image).not.toContain('AbCdEfGhIjKlMnOpQrStUvWxYz012345');
    expect(view).toMatchObject({ serial_number: 'S1', power_state: 'On', model: null, macs: ['52:54:00:00:00:01'] });
  });
});

describe('bmcSettingsOf', () => {
  it('picks exactly the BMC settings out of a bigger object', () => {
    const config = { ...DEFAULT_BMC_SETTINGS, bmcJobLeaseMs: 9_000, listenPort: 8080 };
    expect(bmcSettingsOf(config)).toEqual({ ...DEFAULT_BMC_SETTINGS, bmcJobLeaseMs: 9_000 });
  });
});
