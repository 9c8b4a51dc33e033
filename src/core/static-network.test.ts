// The API shape of an InfraEnv's static_network_config, checked before the conversion: each
// refusal a row naming the entry and the field (400); a good config comes back in upstream's
// shape and converts to one keyfile per interface, named for the host's first MAC. Pure; the same
// configs through the API on PostgreSQL, in the download, the minimal initrd and the discovery
// Ignition, are static-network.postgres.test.ts.
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../errors.js';
import { generateKeyfiles, validateStaticNetworkConfig } from './static-network.js';

const YAML = `interfaces:
- name: eno1
  type: ethernet
  state: up
  ipv4: {enabled: true, address: [{ip: 10.0.0.5, prefix-length: 24}]}
`;
const MAP = [{ mac_address: '52:54:00:aa:00:01', logical_nic_name: 'eno1' }];

describe('validateStaticNetworkConfig', () => {
  it.each<[string, unknown, string]>([
    ['not a list', { network_yaml: YAML }, 'static_network_config must be a list'],
    ['an entry not an object', ['x'], 'static_network_config[0] must be an object'],
    [
      'a field upstream does not have',
      [{ network_yaml: YAML, mac_interface_map: MAP, hostname: 'h' }],
      'static_network_config[0].hostname is not a field of a static network config',
    ],
    ['no network_yaml', [{ mac_interface_map: MAP }], 'static_network_config[0].network_yaml is required'],
    [
      'a blank network_yaml',
      [{ network_yaml: '  ', mac_interface_map: MAP }],
      'static_network_config[0].network_yaml is required',
    ],
    [
      'an empty mac_interface_map',
      [{ network_yaml: YAML, mac_interface_map: [] }],
      'static_network_config[0].mac_interface_map is required',
    ],
    [
      'a MAC that is not a string',
      [{ network_yaml: YAML, mac_interface_map: [{ mac_address: 5 }] }],
      'static_network_config[0].mac_interface_map[0].mac_address is not a MAC address',
    ],
    [
      'an interface name that is not a string',
      [{ network_yaml: YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:00:01', logical_nic_name: 7 }] }],
      'static_network_config[0].mac_interface_map[0].logical_nic_name must be an interface name',
    ],
  ])('refuses %s', (_what, raw, message) => {
    let thrown: unknown;
    try {
      validateStaticNetworkConfig(raw);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(BadRequestError);
    expect((thrown as Error).message).toBe(message);
  });

  it('returns a good config in upstream shape, an interface name given as null left out', () => {
    const raw = [
      {
        network_yaml: YAML,
        mac_interface_map: [...MAP, { mac_address: '52:54:00:aa:00:02', logical_nic_name: null }],
      },
    ];
    expect(validateStaticNetworkConfig(raw)).toEqual([
      { network_yaml: YAML, mac_interface_map: [...MAP, { mac_address: '52:54:00:aa:00:02' }] },
    ]);
  });

  it('converts a good config to the keyfile of its interface, named for the host MAC', () => {
    const files = generateKeyfiles(validateStaticNetworkConfig([{ network_yaml: YAML, mac_interface_map: MAP }]));
    expect(files.map((f) => f.name)).toEqual(['eno1-525400aa0001.nmconnection']);
    expect(files[0]!.contents).toMatch(/^\[connection\]/m);
    expect(files[0]!.contents).toMatch(/address1=10\.0\.0\.5\/24/);
  });
});
