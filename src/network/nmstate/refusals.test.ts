// What the conversion refuses: each bad document is a NetworkConfigError (a 400 at the API)
// whose message names the host (position and first MAC) and the field path, never a partial
// result. Covers the list (YAML syntax, MACs repeated across hosts, a port or
// base-iface naming no interface, VLAN ids out of range, addresses that do not parse, a
// mac_interface_map missing an interface the YAML uses) and every unsupported nmstate key.
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../errors.js';
import { convertHosts, NetworkConfigError, type HostNetworkInput } from './convert.js';

const MAC0 = '52:54:00:0a:00:01';
const MAC1 = '52:54:00:0a:00:02';
const map2 = [
  { macAddress: MAC0, logicalNicName: 'eth0' },
  { macAddress: MAC1, logicalNicName: 'eth1' },
];
const host = (networkYaml: string, macInterfaceMap = map2): HostNetworkInput => ({ networkYaml, macInterfaceMap });

const ETH = `- {name: eth0, type: ethernet}\n- {name: eth1, type: ethernet}\n`;
const BOND = (extra = '', ports = '[eth0, eth1]') =>
  `interfaces:\n${ETH}- name: bond0\n  type: bond\n  ipv4: {enabled: true, dhcp: true}\n  link-aggregation:\n    mode: active-backup\n    port: ${ports}\n${extra}`;
const STATIC = (ip: string, plen: unknown = 24) =>
  `interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    enabled: true\n    address: [{ip: '${ip}', prefix-length: ${String(plen)}}]\n`;

/** [what, hosts, path the message must name, more of the message] */
const CASES: [string, HostNetworkInput[], string, RegExp][] = [
  ['YAML syntax', [host('interfaces: [')], 'network_yaml', /is not valid YAML/],
  ['YAML duplicate key', [host('interfaces: []\ninterfaces: []\n')], 'network_yaml', /not valid YAML/],
  [
    'YAML alias bomb',
    [host(`a: &a [x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n`)],
    'network_yaml',
    /not valid YAML|not supported/,
  ],
  ['not a mapping', [host('- eth0\n')], 'network_yaml', /must be a mapping/],
  ['no interfaces', [host('interfaces: []\n')], 'network_yaml interfaces', /non-empty/],
  ['unsupported top-level key', [host(`${STATIC('10.0.0.2')}ovs-db: {}\n`)], 'network_yaml ovs-db', /not supported/],
  [
    'unsupported interface key (team)',
    [host(`interfaces:\n${ETH}- name: team0\n  type: ethernet\n  team: {}\n`)],
    'network_yaml interfaces[2].team',
    /not supported/,
  ],
  [
    'unsupported type',
    [host(`interfaces:\n- {name: team0, type: team}\n`)],
    'network_yaml interfaces[0].type',
    /team is not supported/,
  ],
  [
    'ethernet section',
    [host(`interfaces:\n- name: eth0\n  type: ethernet\n  ethernet: {speed: 1000}\n`)],
    'network_yaml interfaces[0].ethernet',
    /not supported/,
  ],
  [
    'section of another type',
    [host(`interfaces:\n- name: eth0\n  type: ethernet\n  vlan: {id: 1, base-iface: eth1}\n`)],
    'network_yaml interfaces[0].vlan',
    /not valid for type ethernet/,
  ],
  [
    'unsupported ipv4 key',
    [host(`interfaces:\n- name: eth0\n  ipv4: {enabled: true, dhcp: true, dhcp-client-id: mac}\n`)],
    'network_yaml interfaces[0].ipv4.dhcp-client-id',
    /not supported/,
  ],
  [
    'unsupported bond option',
    [host(BOND('', '[eth0, eth1]\n    options: {bogus: 1}'))],
    'network_yaml interfaces[2].link-aggregation.options.bogus',
    /not supported/,
  ],
  [
    'unsupported dns key',
    [host(`${STATIC('10.0.0.2')}dns-resolver:\n  config: {server: [10.0.0.1], options: [rotate]}\n`)],
    'network_yaml dns-resolver.config.options',
    /not supported/,
  ],
  [
    'unsupported route key',
    [
      host(
        `${STATIC('10.0.0.2')}routes:\n  config: [{destination: 0.0.0.0/0, next-hop-address: 10.0.0.1, weight: 2}]\n`,
      ),
    ],
    'network_yaml routes.config[0].weight',
    /not supported/,
  ],
  [
    'routes.running',
    [host(`${STATIC('10.0.0.2')}routes:\n  running: []\n`)],
    'network_yaml routes.running',
    /not supported/,
  ],
  [
    'IPv4 address does not parse',
    [host(STATIC('10.0.0.256'))],
    'network_yaml interfaces[0].ipv4.address[0].ip',
    /IPv4 address/,
  ],
  [
    'IPv6 address in ipv4',
    [host(STATIC('2001:db8::1'))],
    'network_yaml interfaces[0].ipv4.address[0].ip',
    /IPv4 address/,
  ],
  [
    'IPv6 address does not parse',
    [host(`interfaces:\n- name: eth0\n  ipv6: {enabled: true, address: [{ip: '2001:db8:::1', prefix-length: 64}]}\n`)],
    'network_yaml interfaces[0].ipv6.address[0].ip',
    /IPv6 address/,
  ],
  [
    'prefix length out of range',
    [host(STATIC('10.0.0.2', 33))],
    'network_yaml interfaces[0].ipv4.address[0].prefix-length',
    /0 to 32/,
  ],
  [
    'DNS server does not parse',
    [host(`${STATIC('10.0.0.2')}dns-resolver:\n  config: {server: [10.0.0.300]}\n`)],
    'network_yaml dns-resolver.config.server[0]',
    /IP address/,
  ],
  [
    'route destination does not parse',
    [host(`${STATIC('10.0.0.2')}routes:\n  config: [{destination: 10.0.0.0, next-hop-address: 10.0.0.1}]\n`)],
    'network_yaml routes.config[0].destination',
    /IP prefix/,
  ],
  [
    'route next hop of the other family',
    [host(`${STATIC('10.0.0.2')}routes:\n  config: [{destination: 0.0.0.0/0, next-hop-address: '2001:db8::1'}]\n`)],
    'network_yaml routes.config[0].next-hop-address',
    /IPv4 address/,
  ],
  [
    'route to an unknown interface',
    [
      host(
        `${STATIC('10.0.0.2')}routes:\n  config: [{destination: 0.0.0.0/0, next-hop-address: 10.0.0.1, next-hop-interface: eth7}]\n`,
      ),
    ],
    'network_yaml routes.config[0].next-hop-interface',
    /eth7, which is not an interface/,
  ],
  [
    'route whose next hop no subnet holds',
    [host(`${STATIC('10.0.0.2')}routes:\n  config: [{destination: 0.0.0.0/0, next-hop-address: 192.0.2.1}]\n`)],
    'network_yaml routes.config[0].next-hop-interface',
    /is required/,
  ],
  [
    'route metric out of range',
    [
      host(
        `${STATIC('10.0.0.2')}routes:\n  config: [{destination: 0.0.0.0/0, next-hop-address: 10.0.0.1, metric: 4294967296}]\n`,
      ),
    ],
    'network_yaml routes.config[0].metric',
    /integer/,
  ],
  [
    'bond port names no interface',
    [host(BOND('', '[eth0, eth5]'))],
    'network_yaml interfaces[2].link-aggregation.port[1]',
    /eth5, which is not an interface/,
  ],
  [
    'bond without ports',
    [host(BOND('', '[]'))],
    'network_yaml interfaces[2].link-aggregation.port',
    /at least one port/,
  ],
  [
    'bond mode unknown',
    [host(BOND().replace('active-backup', 'round-robin'))],
    'network_yaml interfaces[2].link-aggregation.mode',
    /must be one of/,
  ],
  [
    'bond option of another mode',
    [host(BOND('', '[eth0, eth1]\n    options: {lacp_rate: fast}'))],
    'network_yaml interfaces[2].link-aggregation.options.lacp_rate',
    /only to bond modes 802.3ad/,
  ],
  [
    'bond primary not a port',
    [host(BOND('', '[eth0, eth1]\n    options: {primary: eth9}'))],
    'network_yaml interfaces[2].link-aggregation.options.primary',
    /not a port/,
  ],
  [
    'port in two bonds',
    [host(`${BOND()}- name: bond1\n  type: bond\n  link-aggregation: {mode: balance-rr, port: [eth1]}\n`)],
    'network_yaml interfaces[3].link-aggregation.port[0]',
    /already a port of bond0/,
  ],
  [
    'port with IP',
    [
      host(
        BOND().replace(
          '- {name: eth0, type: ethernet}',
          '- {name: eth0, type: ethernet, ipv4: {enabled: true, dhcp: true}}',
        ),
      ),
    ],
    'network_yaml interfaces[0].ipv4',
    /must be disabled: eth0 is a port of bond0/,
  ],
  [
    'VLAN base-iface names no interface',
    [host(`interfaces:\n${ETH}- {name: v1, type: vlan, vlan: {id: 10, base-iface: eth3}}\n`)],
    'network_yaml interfaces[2].vlan.base-iface',
    /eth3, which is not an interface/,
  ],
  [
    'VLAN id too large',
    [host(`interfaces:\n${ETH}- {name: v1, type: vlan, vlan: {id: 4095, base-iface: eth0}}\n`)],
    'network_yaml interfaces[2].vlan.id',
    /0 to 4094/,
  ],
  [
    'VLAN id negative',
    [host(`interfaces:\n${ETH}- {name: v1, type: vlan, vlan: {id: -1, base-iface: eth0}}\n`)],
    'network_yaml interfaces[2].vlan.id',
    /0 to 4094/,
  ],
  [
    'VLAN without its section',
    [host(`interfaces:\n${ETH}- {name: v1, type: vlan}\n`)],
    'network_yaml interfaces[2].vlan',
    /required/,
  ],
  [
    'VLAN over a bond port',
    [host(`${BOND()}- {name: v1, type: vlan, vlan: {id: 5, base-iface: eth0}}\n`)],
    'network_yaml interfaces[3].vlan.base-iface',
    /a port of bond0/,
  ],
  [
    'bridge over itself through a VLAN',
    [
      host(
        `interfaces:\n${ETH}- name: br0\n  type: linux-bridge\n  bridge: {port: [{name: br0.5}]}\n- {name: br0.5, type: vlan, vlan: {id: 5, base-iface: br0}}\n`,
      ),
    ],
    'network_yaml interfaces[2]',
    /depends on itself/,
  ],
  [
    'interface name twice',
    [host(`interfaces:\n- {name: eth0}\n- {name: eth0}\n`)],
    'network_yaml interfaces[1].name',
    /twice/,
  ],
  [
    'interface name too long',
    [host(`interfaces:\n- {name: abcdefghijklmnop}\n`)],
    'network_yaml interfaces[0].name',
    /interface name/,
  ],
  [
    'interface name with a backslash',
    [host(`interfaces:\n- {name: 'eth\\\\0'}\n`)],
    'network_yaml interfaces[0].name',
    /interface name/,
  ],
  [
    'MTU out of range',
    [host(`interfaces:\n- {name: eth0, mtu: 70000}\n`)],
    'network_yaml interfaces[0].mtu',
    /68 to 65535/,
  ],
  [
    'mac-address disagrees with the map',
    [host(`interfaces:\n- {name: eth0, mac-address: '52:54:00:0a:00:09'}\n`)],
    'network_yaml interfaces[0].mac-address',
    /binds eth0 to/,
  ],
  [
    'map misses an interface',
    [host(`interfaces:\n- {name: eth0}\n- {name: eth2}\n`)],
    'mac_interface_map',
    /no entry for interface eth2/,
  ],
  [
    'map names a bond',
    [host(BOND(), [...map2, { macAddress: '52:54:00:0a:00:03', logicalNicName: 'bond0' }])],
    'mac_interface_map',
    /names bond0, a bond/,
  ],
  [
    'map MAC does not parse',
    [host(STATIC('10.0.0.2'), [{ macAddress: '52:54:00:0a:00', logicalNicName: 'eth0' }])],
    'mac_interface_map[0].mac_address',
    /not a MAC/,
  ],
  [
    'map repeats a MAC',
    [
      host(STATIC('10.0.0.2'), [
        { macAddress: MAC0, logicalNicName: 'eth0' },
        { macAddress: MAC0.toUpperCase(), logicalNicName: 'eth1' },
      ]),
    ],
    'mac_interface_map[1].mac_address',
    /repeats/,
  ],
  [
    'MAC of two hosts',
    [host(STATIC('10.0.0.2')), host(STATIC('10.0.0.3'), [{ macAddress: MAC1, logicalNicName: 'eth0' }])],
    'mac_interface_map[0].mac_address',
    /also a MAC of static_network_config\[0\]/,
  ],
  [
    'DNS server whose only IPv6 interface is link-local (found by the nmstate fuzz category)',
    [host(`interfaces:\n- {name: eth0, ipv6: {enabled: true}}\ndns-resolver:\n  config: {server: ['2001:db8::53']}\n`)],
    'network_yaml dns-resolver.config.server[0]',
    /IPv6 addresses, DHCP or autoconf/,
  ],
  [
    'arp_ip_target without arp_interval (found by the nmstate fuzz category)',
    [host(BOND('', '[eth0, eth1]\n    options: {arp_ip_target: [192.0.2.1]}'))],
    'network_yaml interfaces[2].link-aggregation.options.arp_ip_target',
    /needs arp_interval/,
  ],
  [
    'updelay without miimon (found by the nmstate fuzz category)',
    [host(BOND('', '[eth0, eth1]\n    options: {updelay: 100}'))],
    'network_yaml interfaces[2].link-aggregation.options.updelay',
    /needs miimon/,
  ],
  [
    'ARP monitoring on balance-alb',
    [
      host(
        BOND('', '[eth0, eth1]\n    options: {arp_interval: 100, arp_ip_target: [192.0.2.1]}').replace(
          'active-backup',
          'balance-alb',
        ),
      ),
    ],
    'network_yaml interfaces[2].link-aggregation.options.arp_interval',
    /only to bond modes/,
  ],
  [
    'IPv4 enabled with nothing',
    [host(`interfaces:\n- {name: eth0, ipv4: {enabled: true}}\n`)],
    'network_yaml interfaces[0].ipv4',
    /neither dhcp/,
  ],
  [
    'auto-dns on a static family',
    [
      host(
        `interfaces:\n- name: eth0\n  ipv4: {enabled: true, auto-dns: false, address: [{ip: 10.0.0.2, prefix-length: 24}]}\n`,
      ),
    ],
    'network_yaml interfaces[0].ipv4.auto-dns',
    /only with dhcp/,
  ],
  [
    'absent interface with settings',
    [
      host(
        `interfaces:\n- {name: eth0, ipv4: {enabled: true, dhcp: true}}\n- {name: eth1, state: absent, mtu: 1500}\n`,
      ),
    ],
    'network_yaml interfaces[1].mtu',
    /state: absent/,
  ],
  [
    'DNS server without an interface of its family',
    [host(`${STATIC('10.0.0.2')}dns-resolver:\n  config: {server: ['2001:db8::53']}\n`)],
    'network_yaml dns-resolver.config.server[0]',
    /IPv6 addresses, DHCP or autoconf/,
  ],
];

describe('nmstate refusals', () => {
  for (const [what, hosts, path, reason] of CASES) {
    it(`${what}: names ${path}`, () => {
      let caught: unknown;
      try {
        convertHosts(hosts);
      } catch (err) {
        caught = err;
      }
      expect(caught, 'refused').toBeInstanceOf(NetworkConfigError);
      const err = caught as NetworkConfigError;
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.path).toBe(path);
      expect(err.message).toMatch(reason);
      const index = path.startsWith('mac_interface_map[0].mac_address') && /also a MAC/.test(err.message) ? 1 : 0;
      expect(err.message.startsWith(`static_network_config[${index}]`), err.message).toBe(true);
      if (hosts[index]!.macInterfaceMap[0]!.macAddress === MAC0 && !/not a MAC/.test(err.message)) {
        expect(err.message).toContain(`(host with MAC ${MAC0})`);
      }
      expect(err.message).toContain(`${path} `);
    });
  }

  it('every refusal above is accepted once its one fault is removed (the baselines are valid)', () => {
    expect(convertHosts([host(BOND())]).map((f) => f.name)).toEqual([
      'bond0-5254000a0001.nmconnection',
      'eth0-5254000a0001.nmconnection',
      'eth1-5254000a0001.nmconnection',
    ]);
    expect(
      convertHosts([
        host(STATIC('10.0.0.2')),
        host(STATIC('10.0.0.3'), [{ macAddress: '52:54:00:0b:00:01', logicalNicName: 'eth0' }]),
      ]),
    ).toHaveLength(2);
    expect(
      convertHosts([host(`interfaces:\n${ETH}- {name: v1, type: vlan, vlan: {id: 4094, base-iface: eth0}}\n`)]),
    ).toHaveLength(3);
  });

  it('bounds the document size', () => {
    const big = `interfaces:\n- name: eth0\n  ipv4: {enabled: true, dhcp: true}\n# ${'x'.repeat(70_000)}\n`;
    expect(() => convertHosts([host(big)])).toThrow(/network_yaml is larger than 65536 bytes/);
  });
});
