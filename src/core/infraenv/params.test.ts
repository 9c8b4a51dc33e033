// parseInfraEnvParams as a table: each row a create or update body (already bound against the
// swagger model) and what it must give — the normalized parameters, or the 400 and its message,
// which never echoes a secret. The static network rows go through the real nmstate conversion
// (src/network/nmstate/). Pure; the same inputs through the API with the database are
// src/core/input.postgres.test.ts and static-network.test.ts.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { BadRequestError } from '../../errors.js';
import { parseInfraEnvParams, type InfraEnvParams, MAX_NO_PROXY_LENGTH, MAX_PROXY_URL_LENGTH } from './params.js';

const AUTH = Buffer.from('user:pass').toString('base64');
const PULL_SECRET = JSON.stringify({ auths: { 'quay.io': { auth: AUTH, email: 'u@example.com' } } });
const CREATE = { name: 'edge', pull_secret: PULL_SECRET };

function sshKey(type = 'ssh-ed25519', claimed = type): string {
  const t = Buffer.from(claimed);
  const blob = Buffer.concat([Buffer.from([0, 0, 0, t.length]), t, Buffer.from([0, 0, 0, 32]), randomBytes(32)]);
  return `${type} ${blob.toString('base64')} user@example`;
}
const KEY_A = sshKey();
const KEY_B = sshKey('ecdsa-sha2-nistp256');

const NETWORK_YAML = [
  'interfaces:',
  '  - name: eth0',
  '    type: ethernet',
  '    state: up',
  '    ipv4: {enabled: true, dhcp: false, address: [{ip: 192.0.2.10, prefix-length: 24}]}',
  '',
].join('\n');
const MAC = '52:54:00:12:34:56';

type Outcome = { params: InfraEnvParams } | { message: string };

interface Row {
  name: string;
  mode?: 'create' | 'update';
  body: unknown;
  outcome: Outcome;
}

const refused = (message: string): Outcome => ({ message });
const created = (extra: InfraEnvParams): Outcome => ({ params: { name: 'edge', pullSecret: PULL_SECRET, ...extra } });

const ROWS: Row[] = [
  // the body and the required fields
  { name: 'a minimal create', body: CREATE, outcome: created({}) },
  { name: 'a body that is no object', body: ['x'], outcome: refused('request body must be a JSON object') },
  { name: 'a null body', body: null, outcome: refused('request body must be a JSON object') },
  { name: 'create without a name', body: { pull_secret: PULL_SECRET }, outcome: refused('name is required') },
  { name: 'create with a blank name', body: { ...CREATE, name: '  ' }, outcome: refused('name is required') },
  { name: 'create without a pull secret', body: { name: 'edge' }, outcome: refused('pull_secret is required') },
  { name: 'an update needs neither', mode: 'update', body: {}, outcome: { params: {} } },
  { name: 'a name that is no string', body: { ...CREATE, name: 7 }, outcome: refused('name must be a string') },
  {
    name: 'a name of 257 characters',
    body: { ...CREATE, name: 'n'.repeat(257) },
    outcome: refused('name must be at most 256 characters'),
  },
  {
    name: 'a name with a newline',
    body: { ...CREATE, name: 'a\nb' },
    outcome: refused('name must not contain control characters (U+000A at offset 1)'),
  },
  // pull secret
  {
    name: 'a pull secret that is not JSON',
    body: { ...CREATE, pull_secret: '{"auths":' },
    outcome: refused('pull secret must be a well-formed JSON'),
  },
  {
    name: 'a pull secret that is a list',
    body: { ...CREATE, pull_secret: '[]' },
    outcome: refused('pull secret must be a JSON object'),
  },
  {
    name: 'a pull secret without auths',
    body: { ...CREATE, pull_secret: '{"registries":{}}' },
    outcome: refused("pull secret must contain an 'auths' JSON-object field"),
  },
  {
    name: 'a registry without auth',
    body: { ...CREATE, pull_secret: '{"auths":{"quay.io":{"email":"e"}}}' },
    outcome: refused("invalid pull secret: 'auth' is missing for registry quay.io"),
  },
  {
    name: 'an auth that is not base64 of user:password',
    body: {
      ...CREATE,
      pull_secret: JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('nocolon').toString('base64') } } }),
    },
    outcome: refused("invalid pull secret: 'auth' for registry quay.io is not base64 of user:password"),
  },
  // SSH keys
  {
    name: 'one SSH key',
    body: { ...CREATE, ssh_authorized_key: KEY_A },
    outcome: created({ sshAuthorizedKey: KEY_A }),
  },
  {
    name: 'two SSH keys with comments and blank lines: kept, trimmed',
    body: { ...CREATE, ssh_authorized_key: `# ops\n  ${KEY_A}  \n\n${KEY_B}\n` },
    outcome: created({ sshAuthorizedKey: `${KEY_A}\n${KEY_B}` }),
  },
  { name: 'a null SSH key: left unset', body: { ...CREATE, ssh_authorized_key: null }, outcome: created({}) },
  {
    name: 'an unknown key type',
    body: { ...CREATE, ssh_authorized_key: sshKey('ssh-foo') },
    outcome: refused('ssh_authorized_key line 1 is not a valid SSH public key'),
  },
  {
    name: 'a key blob naming another type',
    body: { ...CREATE, ssh_authorized_key: `${KEY_A}\n${sshKey('ssh-rsa', 'ssh-ed25519')}` },
    outcome: refused('ssh_authorized_key line 2 is not a valid SSH public key'),
  },
  {
    name: 'a key without its blob',
    body: { ...CREATE, ssh_authorized_key: 'ssh-ed25519' },
    outcome: refused('ssh_authorized_key line 1 is not a valid SSH public key'),
  },
  // proxy
  {
    name: 'a proxy, members kept as sent (empty means unset)',
    body: {
      ...CREATE,
      proxy: { http_proxy: 'http://proxy.example:3128', https_proxy: '', no_proxy: '.example,10.0.0.0/8' },
    },
    outcome: created({
      proxy: { http_proxy: 'http://proxy.example:3128', https_proxy: '', no_proxy: '.example,10.0.0.0/8' },
    }),
  },
  { name: 'a null proxy', body: { ...CREATE, proxy: null }, outcome: created({ proxy: null }) },
  {
    name: 'an https proxy over https',
    body: { ...CREATE, proxy: { https_proxy: 'https://user:p%40ss@proxy.example' } },
    outcome: created({ proxy: { https_proxy: 'https://user:p%40ss@proxy.example' } }),
  },
  {
    name: 'an http proxy over https',
    body: { ...CREATE, proxy: { http_proxy: 'https://proxy.example' } },
    outcome: refused('proxy.http_proxy must use the http scheme'),
  },
  {
    name: 'a proxy with a query',
    body: { ...CREATE, proxy: { http_proxy: 'http://proxy.example/?a=b' } },
    outcome: refused('proxy.http_proxy must not have a query or a fragment'),
  },
  {
    name: 'a proxy with a space',
    body: { ...CREATE, proxy: { http_proxy: 'http://proxy example' } },
    outcome: refused('proxy.http_proxy must not contain " " (offset 12): not a URL character'),
  },
  {
    name: 'a proxy with a stray %',
    body: { ...CREATE, proxy: { http_proxy: 'http://proxy.example/%zz' } },
    outcome: refused('proxy.http_proxy has a "%" that does not start a two-digit escape (offset 21)'),
  },
  {
    name: 'a proxy URL too long',
    body: { ...CREATE, proxy: { http_proxy: `http://${'p'.repeat(MAX_PROXY_URL_LENGTH)}` } },
    outcome: refused(`proxy.http_proxy must be at most ${MAX_PROXY_URL_LENGTH} characters`),
  },
  {
    name: 'a no_proxy with a shell character',
    body: { ...CREATE, proxy: { no_proxy: 'a.example;b' } },
    outcome: refused('proxy.no_proxy must be "*" or a comma-separated list of domains, IPs or CIDRs'),
  },
  {
    name: 'a no_proxy too long',
    body: { ...CREATE, proxy: { no_proxy: 'a,'.repeat(MAX_NO_PROXY_LENGTH) } },
    outcome: refused(`proxy.no_proxy must be at most ${MAX_NO_PROXY_LENGTH} characters`),
  },
  // NTP, image type, kernel arguments, trust bundle, cluster id, delay
  {
    name: 'NTP sources trimmed and joined',
    body: { ...CREATE, additional_ntp_sources: ' ntp1.example , 192.0.2.1,,[2001:db8::1] ' },
    outcome: created({ additionalNtpSources: 'ntp1.example,192.0.2.1,[2001:db8::1]' }),
  },
  {
    name: 'an NTP source with a slash',
    body: { ...CREATE, additional_ntp_sources: 'ntp.example/x' },
    outcome: refused('NTP source "ntp.example/x" is not a valid hostname or IP address'),
  },
  {
    name: 'minimal-iso',
    body: { ...CREATE, image_type: 'minimal-iso' },
    outcome: created({ imageType: 'minimal-iso' }),
  },
  {
    name: 'an unknown image type',
    body: { ...CREATE, image_type: 'raw' },
    outcome: refused('image_type "raw" is not supported (full-iso, minimal-iso)'),
  },
  {
    name: 'kernel arguments to append',
    body: { ...CREATE, kernel_arguments: [{ operation: 'append', value: 'console=ttyS0' }] },
    outcome: created({ kernelArguments: [{ operation: 'append', value: 'console=ttyS0' }] }),
  },
  {
    name: 'an empty kernel argument list: none',
    body: { ...CREATE, kernel_arguments: [] },
    outcome: created({ kernelArguments: null }),
  },
  {
    name: 'a kernel argument to delete',
    body: { ...CREATE, kernel_arguments: [{ operation: 'delete', value: 'quiet' }] },
    outcome: refused("kernel_arguments[0]: only 'append' operation is allowed, got 'delete'"),
  },
  {
    name: 'kernel arguments that are no list',
    body: { ...CREATE, kernel_arguments: 'quiet' },
    outcome: refused('kernel_arguments must be a list'),
  },
  {
    name: 'a trust bundle of one certificate',
    body: { ...CREATE, additional_trust_bundle: '-----BEGIN CERTIFICATE-----\nTUlJQg==\n-----END CERTIFICATE-----\n' },
    outcome: created({ additionalTrustBundle: '-----BEGIN CERTIFICATE-----\nTUlJQg==\n-----END CERTIFICATE-----\n' }),
  },
  {
    name: 'a blank trust bundle: empty',
    body: { ...CREATE, additional_trust_bundle: ' \n' },
    outcome: created({ additionalTrustBundle: '' }),
  },
  {
    name: 'a trust bundle without a certificate',
    body: { ...CREATE, additional_trust_bundle: 'not a certificate' },
    outcome: refused('additional_trust_bundle must contain PEM-encoded certificates'),
  },
  {
    name: 'a certificate that is not base64',
    body: { ...CREATE, additional_trust_bundle: '-----BEGIN CERTIFICATE-----\n$$$\n-----END CERTIFICATE-----' },
    outcome: refused('additional_trust_bundle contains a malformed certificate'),
  },
  {
    name: 'a cluster id, lower-cased',
    body: { ...CREATE, cluster_id: 'ABCDEF00-0000-4000-8000-000000000001' },
    outcome: created({ clusterId: 'abcdef00-0000-4000-8000-000000000001' }),
  },
  {
    name: 'a cluster id that is no UUID',
    body: { ...CREATE, cluster_id: 'c1' },
    outcome: refused('cluster_id must be a UUID'),
  },
  {
    name: 'a discovery delay',
    body: { ...CREATE, network_discovery_delay_seconds: 30 },
    outcome: created({ networkDiscoveryDelaySeconds: 30 }),
  },
  {
    name: 'a negative discovery delay',
    body: { ...CREATE, network_discovery_delay_seconds: -1 },
    outcome: refused('network_discovery_delay_seconds must be a non-negative integer'),
  },
  // static network
  {
    name: 'a static network config for one host',
    body: {
      ...CREATE,
      static_network_config: [
        { network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: MAC, logical_nic_name: 'eth0' }] },
      ],
    },
    outcome: created({
      staticNetworkConfig: [
        { network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: MAC, logical_nic_name: 'eth0' }] },
      ],
    }),
  },
  {
    name: 'an empty static network config: none',
    body: { ...CREATE, static_network_config: [] },
    outcome: created({ staticNetworkConfig: null }),
  },
  {
    name: 'a static network config that is no list',
    body: { ...CREATE, static_network_config: { network_yaml: NETWORK_YAML } },
    outcome: refused('static_network_config must be a list'),
  },
  {
    name: 'a static network entry with a field of its own',
    body: {
      ...CREATE,
      static_network_config: [{ network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: MAC }], extra: 1 }],
    },
    outcome: refused('static_network_config[0].extra is not a field of a static network config'),
  },
  {
    name: 'a static network entry without a MAC map',
    body: { ...CREATE, static_network_config: [{ network_yaml: NETWORK_YAML, mac_interface_map: [] }] },
    outcome: refused('static_network_config[0].mac_interface_map is required'),
  },
  {
    name: 'a MAC map entry without a MAC',
    body: {
      ...CREATE,
      static_network_config: [{ network_yaml: NETWORK_YAML, mac_interface_map: [{ logical_nic_name: 'eth0' }] }],
    },
    outcome: refused('static_network_config[0].mac_interface_map[0].mac_address is not a MAC address'),
  },
];

function outcomeOf(body: unknown, mode: 'create' | 'update'): Outcome {
  try {
    return { params: parseInfraEnvParams(body, mode) };
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestError);
    return { message: (err as Error).message };
  }
}

describe('parseInfraEnvParams: table', () => {
  it.each(ROWS.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const result = outcomeOf(row.body, row.mode ?? 'create');
    expect(result).toEqual(row.outcome);
    if ('message' in result) expect(result.message).not.toContain(AUTH);
  });

  it('refuses a static network config the nmstate conversion refuses, naming the host and the field', () => {
    const yaml = NETWORK_YAML.replace('192.0.2.10', '192.0.2.300');
    const result = outcomeOf(
      { ...CREATE, static_network_config: [{ network_yaml: yaml, mac_interface_map: [{ mac_address: MAC }] }] },
      'create',
    );
    expect(result).toEqual({
      message: `static_network_config[0] (host with MAC ${MAC}): network_yaml interfaces[0].ipv4.address[0].ip must be an IPv4 address`,
    });
  });
});
