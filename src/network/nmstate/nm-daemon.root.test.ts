// The MAC binding, checked by NetworkManager itself: the real daemon in a throwaway network
// namespace (test-support/nm-namespace.ts) with veth NICs carrying the mapped MACs loads the
// keyfiles of a whole InfraEnv (every host's) and activates only what belongs to the machine:
//   1. host A's machine: host A's bridge comes up through its port (the bridge profile does not
//      autoconnect), with host A's address; host B's same-named bridge profile stays inactive;
//      a NIC no host maps falls back to NetworkManager's automatic DHCP profile.
//   2. a machine whose MACs match no host: none of the InfraEnv's profiles activates, no
//      bridge is created, no configured address appears; every NIC falls back to DHCP.
//   3. bond + VLAN profiles as the daemon reports them (bond mode and options, VLAN id and
//      parent, addresses, port MACs). This kernel has no bonding or 802.1Q module (`ip link
//      add type bond|vlan` answers "Unknown device type"), so bonds and VLANs cannot be
//      created here: the bridge cases stand for the controller/port mechanism bonds share.
import { afterEach, describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { convertHosts, type HostNetworkInput } from './convert.js';
import { stableUuid } from './render-host.js';
import { loadCorpus } from './test-support/corpus.js';
import { HAVE_NM_NAMESPACE, NmNamespace } from './test-support/nm-namespace.js';

const BRIDGE_HOST = (ip: string, mac: string): HostNetworkInput => ({
  networkYaml: `interfaces:
- {name: eno1, type: ethernet}
- name: br0
  type: linux-bridge
  ipv4: {enabled: true, address: [{ip: ${ip}, prefix-length: 24}]}
  bridge: {options: {stp: {enabled: false}}, port: [{name: eno1}]}
`,
  macInterfaceMap: [{ macAddress: mac, logicalNicName: 'eno1' }],
});
const MAC_A = '52:54:00:a0:00:01';
const MAC_B = '52:54:00:b0:00:01';
const INFRA_ENV = [BRIDGE_HOST('10.77.0.11', MAC_A), BRIDGE_HOST('10.77.0.12', MAC_B)];
const uuid = (mac: string, name: string) => stableUuid(`bootsmith-nmstate/${mac.replaceAll(':', '')}/${name}`);
const allAddresses = (m: Map<string, string[]>) => [...m.values()].flat();

describe.skipIf(
  unavailable({
    'root, NetworkManager, nmcli, dbus-daemon, unshare, nsenter, ip (Debian network-manager)': HAVE_NM_NAMESPACE,
  }),
)('NetworkManager in a network namespace activates only the machine’s own profiles', { timeout: 240_000 }, () => {
  let ns: NmNamespace | undefined;
  afterEach(() => {
    ns?.stop();
    ns = undefined;
  });

  it("1. host A's machine: A's bridge via its MAC-matched port, B's stays down, an unmapped NIC gets DHCP", async () => {
    ns = await NmNamespace.start(convertHosts(INFRA_ENV), [
      { name: 'ens3', mac: MAC_A },
      { name: 'ens4', mac: '52:54:00:99:99:99' },
    ]);
    const s = ns.snapshot();
    expect(s.connections.size).toBeGreaterThanOrEqual(4);
    expect(s.connections.get(uuid(MAC_A, 'eno1'))?.device, 'A’s port profile on the NIC with A’s MAC').toBe('ens3');
    expect(s.connections.get(uuid(MAC_A, 'br0'))?.device, 'A’s bridge activated by its port').toBe('br0');
    expect(s.devices.get('br0')?.state).toBe('connected');
    expect(s.addresses.get('br0')).toContain('10.77.0.11/24');
    expect(s.connections.get(uuid(MAC_B, 'br0'))?.device, 'B’s bridge profile stays inactive').toBe('');
    expect(s.connections.get(uuid(MAC_B, 'eno1'))?.device).toBe('');
    expect(allAddresses(s.addresses)).not.toContain('10.77.0.12/24');
    expect(s.devices.get('ens4')?.connection, 'no InfraEnv profile on the unmapped NIC').not.toMatch(/^(eno1|br0)$/);
    expect(s.dhcpFallback('ens4'), 'the unmapped NIC falls back to DHCP').toMatch(/^Wired connection \d+$/);
    expect(s.dhcpFallback('ens3'), 'the mapped NIC does not').toBeUndefined();
  });

  it('2. a machine no host maps: nothing of the InfraEnv activates, no bridge, DHCP everywhere', async () => {
    ns = await NmNamespace.start(convertHosts(INFRA_ENV), [
      { name: 'ens3', mac: '52:54:00:99:00:01' },
      { name: 'ens4', mac: '52:54:00:99:00:02' },
    ]);
    const s = ns.snapshot();
    for (const mac of [MAC_A, MAC_B]) {
      for (const name of ['eno1', 'br0']) expect(s.connections.get(uuid(mac, name))?.device, `${mac} ${name}`).toBe('');
    }
    expect(s.addresses.has('br0'), 'no bridge device was created').toBe(false);
    expect(allAddresses(s.addresses).filter((a) => a.startsWith('10.77.'))).toEqual([]);
    for (const nic of ['ens3', 'ens4']) expect(s.dhcpFallback(nic), nic).toMatch(/^Wired connection \d+$/);
  });

  it('3. bond + VLAN + dual stack: the daemon reports bond mode and options, VLAN id and parent, addresses, port MACs', async () => {
    const c = loadCorpus().find((x) => x.name === '24-bond-vlan-dualstack-routes-dns')!;
    ns = await NmNamespace.start(convertHosts(c.hosts), [{ name: 'ens3', mac: '52:54:00:99:00:01' }]);
    const s = ns.snapshot();
    const host = '52:54:00:0a:00:01';
    const bond = s.show(
      uuid(host, 'bond0'),
      'connection.type,connection.interface-name,connection.autoconnect,bond.options',
    );
    expect(bond.get('connection.type')).toBe('bond');
    expect(bond.get('connection.interface-name')).toBe('bond0');
    expect(bond.get('connection.autoconnect')).toBe('no');
    expect(bond.get('bond.options')).toBe('mode=802.3ad,lacp_rate=fast,miimon=100,xmit_hash_policy=layer3+4');
    const vlan = s.show(
      uuid(host, 'bond0.300'),
      'vlan.id,vlan.parent,ipv4.addresses,ipv4.gateway,ipv6.addresses,ipv4.dns,ipv4.routes',
    );
    expect(vlan.get('vlan.id')).toBe('300');
    expect(vlan.get('vlan.parent')).toBe(uuid(host, 'bond0'));
    expect(vlan.get('ipv4.addresses')).toBe('10.30.0.15/24');
    expect(vlan.get('ipv4.gateway')).toBe('10.30.0.1');
    expect(vlan.get('ipv6.addresses')).toBe('fd00:30::15/64');
    expect(vlan.get('ipv4.dns')).toBe('10.30.0.2');
    expect(vlan.get('ipv4.routes')).toMatch(/172\.20\.0\.0\/16 10\.30\.0\.254 200/);
    for (const [port, mac] of [
      ['eno1', '52:54:00:0A:00:01'],
      ['eno2', '52:54:00:0A:00:02'],
    ] as const) {
      const p = s.show(uuid(host, port), 'connection.master,connection.slave-type,802-3-ethernet.mac-address');
      expect(p.get('connection.master')).toBe(uuid(host, 'bond0'));
      expect(p.get('connection.slave-type')).toBe('bond');
      expect(p.get('802-3-ethernet.mac-address')).toBe(mac);
    }
    // Nothing of it on a machine with other MACs: the VLAN has no parent, the bond no port.
    expect(s.addresses.has('bond0')).toBe(false);
    expect(s.addresses.has('bond0.300')).toBe(false);
    expect(s.dhcpFallback('ens3')).toMatch(/^Wired connection \d+$/);
  });
});
