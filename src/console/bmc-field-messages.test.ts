// console/bmc-parts.js bmcFieldOf (which Add BMC form field an API refusal names) against the
// messages the real parser (src/bmc/bmc-input.ts) gives for a bad value of each field the form
// has: each must land under its own field. The duplicate name (a 409 from the repository) lands
// under the name; a 409 about a job or a message naming no form field lands above the form.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../package-root.js';
import { parseBmcBody } from '../bmc/bmc-input.js';

type Parts = { bmcFieldOf(message: string): string | undefined };

const VALID = { name: 'node-1', address: 'https://10.0.0.21', username: 'root', password: 'pw' };
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

const CASES: [string, Record<string, unknown>][] = [
  ['name', { ...VALID, name: '<img src=x onerror=alert(1)>' }],
  ['name', { ...VALID, name: undefined }],
  ['address', { ...VALID, address: 'ftp://bmc' }],
  ['address', { ...VALID, address: 'https://root:pw@bmc/' }],
  ['username', { ...VALID, username: '' }],
  ['password', { ...VALID, password: '' }],
  ['password', { ...VALID, password: undefined }],
  ['ca_pem', { ...VALID, ca_pem: 'not a certificate' }],
  ['insecure', { ...VALID, insecure: true, ca_pem: PEM }],
  ['infra_env_id', { ...VALID, infra_env_id: '7' }],
];

function refusal(body: Record<string, unknown>): string {
  try {
    parseBmcBody(JSON.parse(JSON.stringify(body)), 'create');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

describe('BMC API refusals → Add BMC form fields', () => {
  let parts: Parts;
  beforeAll(async () => {
    parts = (await import(pathToFileURL(path.join(PACKAGE_ROOT, 'console', 'bmc-parts.js')).href)) as Parts;
  });

  it.each(CASES)('%s: %j', (field, body) => {
    expect(parts.bmcFieldOf(refusal(body))).toBe(field);
  });

  it('a duplicate name under the name; a job conflict or an unknown field above the form', () => {
    expect(parts.bmcFieldOf('a BMC named "node-1" exists already')).toBe('name');
    expect(
      parts.bmcFieldOf('BMC "node-1" has a running job already (boot-discovery 1234): one job per BMC at a time'),
    ).toBeUndefined();
    expect(parts.bmcFieldOf(refusal({ ...VALID, surprise: 1 }))).toBeUndefined();
    expect(parts.bmcFieldOf('the service answered 503')).toBeUndefined();
  });
});
