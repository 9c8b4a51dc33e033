// console/api.js fieldOf (which form field an API error names) against the messages the real
// parser (src/core/infraenv/params.ts) gives for a bad value of each field the console's form
// has: every one must land under its own field, so the form shows it inline. And
// console/static-network-editor.js controlIdOf against the handlers' and go-openapi's static
// networking refusals: each lands under the host's YAML or the MAC row it names.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../package-root.js';
import { parseInfraEnvParams } from '../core/infraenv/params.js';
import { firstViolation } from '../core/validation/body-schema.js';
import { INFRA_ENV_CREATE } from '../core/validation/body-models.js';
import { PULL_SECRET } from '../../test/support/all-in-one.js';

type Api = { fieldOf(message: string): string | undefined };

const VALID = { name: 'lab', openshift_version: '4.17', cpu_architecture: 'x86_64', pull_secret: PULL_SECRET };

/** A bad value per form field, and the field the message must be shown under. */
const CASES: [string, Record<string, unknown>][] = [
  ['name', { ...VALID, name: '' }],
  ['name', { ...VALID, name: 7 }],
  ['pull_secret', { ...VALID, pull_secret: '{"auths": ' }],
  ['pull_secret', { ...VALID, pull_secret: '{"auths":{"quay.io":{}}}' }],
  ['ssh_authorized_key', { ...VALID, ssh_authorized_key: 'not a key' }],
  ['image_type', { ...VALID, image_type: 'cd-rom' }],
  ['kernel_arguments', { ...VALID, kernel_arguments: [{ operation: 'append', value: 'a;b' }] }],
  ['additional_ntp_sources', { ...VALID, additional_ntp_sources: 'bad host!' }],
  ['static_network_config', { ...VALID, static_network_config: [{ network_yaml: 7 }] }],
  ['openshift_version', { ...VALID, openshift_version: 4.17 }],
  ['cpu_architecture', { ...VALID, cpu_architecture: ['x86_64'] }],
];

describe('API error messages → console form fields', () => {
  let api: Api;
  beforeAll(async () => {
    api = (await import(pathToFileURL(path.join(PACKAGE_ROOT, 'console', 'api.js')).href)) as Api;
  });

  for (const [field, body] of CASES) {
    it(`${field}: ${JSON.stringify(body[field]).slice(0, 40)}`, () => {
      let message: string | undefined;
      try {
        parseInfraEnvParams(body, 'create');
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, 'the parser refuses it').toBeDefined();
      expect(api.fieldOf(message!), message).toBe(field);
    });
  }

  it('names no field for messages about none', () => {
    expect(api.fieldOf('request body must be a JSON object')).toBeUndefined();
    expect(api.fieldOf('the service answered 500')).toBeUndefined();
  });
});

describe('static networking refusals → the editor control they name', () => {
  type Editor = { controlIdOf(message: string): string | undefined };
  let editor: Editor;
  beforeAll(async () => {
    editor = (await import(
      pathToFileURL(path.join(PACKAGE_ROOT, 'console', 'static-network-editor.js')).href
    )) as Editor;
  });
  const YAML = 'interfaces:\n- {name: eth0, type: ethernet, state: up}\n';
  const host = (mac: string, yaml = YAML) => ({
    network_yaml: yaml,
    mac_interface_map: [{ mac_address: mac, logical_nic_name: 'eth0' }],
  });
  const refusal = (snc: unknown[]): string => {
    try {
      parseInfraEnvParams({ ...VALID, static_network_config: snc }, 'create');
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('the parser accepted it');
  };

  it.each([
    [
      'a YAML the converter refuses, second host',
      [host('52:54:00:00:00:01'), host('52:54:00:00:00:02', 'interfaces: 7\n')],
      'sn-1-yaml',
    ],
    [
      'a YAML left empty',
      [host('52:54:00:00:00:01'), { network_yaml: '', mac_interface_map: [{ mac_address: '52:54:00:00:00:03' }] }],
      'sn-1-yaml',
    ],
    ['a MAC that is no MAC', [host('52:54:00:zz:00:01')], 'sn-0-0-mac'],
    ['no MAC rows', [{ network_yaml: YAML, mac_interface_map: [] }], 'sn-0-0-mac'],
  ])('the handlers: %s', (_what, snc, id) => {
    const message = refusal(snc);
    expect(editor.controlIdOf(message), message).toBe(id);
  });

  it("go-openapi's schema messages", () => {
    const violation = firstViolation(
      { ...VALID, static_network_config: [host('52:54:00:00:00:01'), host('not-a-mac')] },
      INFRA_ENV_CREATE.schema,
      INFRA_ENV_CREATE.param,
    );
    expect(violation?.message).toMatch(/static_network_config\.1\.mac_interface_map\.0\.mac_address in body/);
    expect(editor.controlIdOf(violation!.message)).toBe('sn-1-0-mac');
    expect(editor.controlIdOf('pull secret must be JSON')).toBeUndefined();
  });
});
