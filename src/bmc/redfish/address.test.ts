import { describe, expect, it } from 'vitest';
import { parseBmcAddress } from './address.js';
import { RedfishError } from './errors.js';

const OK: [string, string, string | undefined][] = [
  // address, display, systemPath
  ['bmc.example.com', 'https://bmc.example.com/redfish/v1', undefined],
  ['10.0.0.5:8443', 'https://10.0.0.5:8443/redfish/v1', undefined],
  ['[fd00::5]', 'https://[fd00::5]/redfish/v1', undefined],
  ['https://bmc/', 'https://bmc/redfish/v1', undefined],
  ['https://bmc/redfish/v1', 'https://bmc/redfish/v1', undefined],
  ['https://bmc/redfish/v1/', 'https://bmc/redfish/v1', undefined],
  ['HTTPS://BMC:443/redfish/v1', 'https://bmc/redfish/v1', undefined],
  ['http://127.0.0.1:8000', 'http://127.0.0.1:8000/redfish/v1', undefined],
  ['https://bmc/redfish/v1/Systems/System.Embedded.1', 'https://bmc/redfish/v1/Systems/System.Embedded.1', '/redfish/v1/Systems/System.Embedded.1'],
  ['https://bmc/redfish/v1/Systems/1/', 'https://bmc/redfish/v1/Systems/1', '/redfish/v1/Systems/1'],
  ['redfish-virtualmedia://10.1.1.1/redfish/v1/Systems/1', 'https://10.1.1.1/redfish/v1/Systems/1', '/redfish/v1/Systems/1'],
  ['redfish-virtualmedia+http://10.1.1.1:8000/redfish/v1/Systems/1', 'http://10.1.1.1:8000/redfish/v1/Systems/1', '/redfish/v1/Systems/1'],
  ['idrac-virtualmedia://idrac/redfish/v1/Systems/System.Embedded.1', 'https://idrac/redfish/v1/Systems/System.Embedded.1', '/redfish/v1/Systems/System.Embedded.1'],
  ['redfish://bmc', 'https://bmc/redfish/v1', undefined],
]; // prettier-ignore

const BAD: [string, RegExp][] = [
  ['', /empty/],
  ['https://admin:secret@bmc/redfish/v1', /must not carry a user name or password/],
  ['admin:secret@bmc', /must not carry a user name or password/],
  ['https://bmc/redfish/v1?x=1', /query or fragment/],
  ['https://bmc/redfish/v1#frag', /query or fragment/],
  ['ftp://bmc', /unsupported scheme "ftp"/],
  ['redfish+gopher://bmc', /unsupported scheme/],
  ['https://bmc/other', /neither the Redfish service root/],
  ['https://bmc/redfish/v1/Managers/1', /neither the Redfish service root/],
  ['https://bmc/redfish/v1/Systems/', /neither the Redfish service root/],
  ['bmc example', /white space/],
  ['https://', /not a valid host|no host/],
];

describe('parseBmcAddress', () => {
  it.each(OK)('%s → %s', (address, display, systemPath) => {
    const a = parseBmcAddress('b1', address);
    expect(a.display).toBe(display);
    expect(a.systemPath).toBe(systemPath);
    expect(a.rootPath).toBe('/redfish/v1');
    expect(display.startsWith(a.origin)).toBe(true);
  });

  it.each(BAD)('refuses %j', (address, why) => {
    let error: unknown;
    try {
      parseBmcAddress('rack1-node4', address);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RedfishError);
    const e = error as RedfishError;
    expect(e.failure).toBe('bad-input');
    expect(e.kind).toBe('bad-request');
    expect(e.message).toMatch(/^BMC "rack1-node4": address: invalid input: /);
    expect(e.message).toMatch(why);
    // the refused address (with its password) is not echoed back
    expect(e.message).not.toContain('secret');
  });
});
