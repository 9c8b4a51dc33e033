// console/api.js fieldOf (which form field an API error names) against the messages the real
// parser (src/core/infraenv/params.ts) gives for a bad value of each field the console's form
// has: every one must land under its own field, so the form shows it inline.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../config.js';
import { parseInfraEnvParams } from '../core/infraenv/params.js';
import { PULL_SECRET } from '../test-support/all-in-one.js';

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
