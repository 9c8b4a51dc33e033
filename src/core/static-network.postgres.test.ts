// Static networking through the assisted API, over real HTTP on a real PostgreSQL: a
// two-host InfraEnv with bonds, VLANs and IPv6 is accepted, and its keyfiles are the same
// bytes, mode 0600, in the static-network-config download (read back with tar), the
// minimal initrd's etc/coreos-firstboot-network/ and the discovery Ignition; every bad
// input of issue 10 is a 400 naming the host and the field, on create and on update, and
// stores nothing. The API shape's own refusals, pure, are static-network.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInitrd } from '../initrd/initrd.js';
import { isRegularFile } from '../initrd/cpio.js';
import { http, PULL_SECRET, startHarness, type Harness } from './test-support/harness.js';
import { backends } from '../platform/db/test-support/backends.js';

const HOST_A = [
  { mac_address: '52:54:00:aa:00:01', logical_nic_name: 'eno1' },
  { mac_address: '52:54:00:aa:00:02', logical_nic_name: 'eno2' },
];
const HOST_B = [
  { mac_address: '52:54:00:bb:00:01', logical_nic_name: 'eno1' },
  { mac_address: '52:54:00:bb:00:02', logical_nic_name: 'eno2' },
];
const BOND_VLAN = (ip: string, ip6: string) => `interfaces:
- {name: eno1, type: ethernet, state: up}
- {name: eno2, type: ethernet, state: up}
- name: bond0
  type: bond
  state: up
  link-aggregation:
    mode: 802.3ad
    options: {miimon: '100', lacp_rate: fast}
    port: [eno1, eno2]
- name: bond0.120
  type: vlan
  state: up
  vlan: {base-iface: bond0, id: 120}
  ipv4: {enabled: true, address: [{ip: ${ip}, prefix-length: 24}]}
  ipv6: {enabled: true, address: [{ip: '${ip6}', prefix-length: 64}]}
dns-resolver:
  config: {server: [10.120.0.1]}
routes:
  config:
  - {destination: 0.0.0.0/0, next-hop-address: 10.120.0.1, next-hop-interface: bond0.120}
`;
const GOOD = [
  { network_yaml: BOND_VLAN('10.120.0.11', 'fd12::11'), mac_interface_map: HOST_A },
  { network_yaml: BOND_VLAN('10.120.0.12', 'fd12::12'), mac_interface_map: HOST_B },
];

/** [what, static_network_config, message must match] */
const BAD: [string, unknown, RegExp][] = [
  [
    'YAML syntax',
    [{ network_yaml: 'interfaces: [', mac_interface_map: HOST_A }],
    /\[0\] \(host with MAC 52:54:00:aa:00:01\): network_yaml is not valid YAML/,
  ],
  [
    'duplicate MAC across hosts',
    [GOOD[0], { ...GOOD[1], mac_interface_map: [HOST_B[0], HOST_A[1]] }],
    /static_network_config\[1\] \(host with MAC 52:54:00:bb:00:01\): mac_interface_map\[1\]\.mac_address 52:54:00:AA:00:02 is also a MAC of static_network_config\[0\]/,
  ],
  [
    'port naming no interface',
    [{ ...GOOD[0], network_yaml: GOOD[0]!.network_yaml.replace('port: [eno1, eno2]', 'port: [eno1, eno3]') }],
    /network_yaml interfaces\[2\]\.link-aggregation\.port\[1\] names eno3, which is not an interface/,
  ],
  [
    'base-iface naming no interface',
    [{ ...GOOD[0], network_yaml: GOOD[0]!.network_yaml.replace('base-iface: bond0', 'base-iface: bond9') }],
    /network_yaml interfaces\[3\]\.vlan\.base-iface names bond9/,
  ],
  [
    'VLAN id out of range',
    [{ ...GOOD[0], network_yaml: GOOD[0]!.network_yaml.replace('id: 120', 'id: 5000') }],
    /network_yaml interfaces\[3\]\.vlan\.id must be an integer from 0 to 4094/,
  ],
  [
    'address that does not parse',
    [GOOD[0], { ...GOOD[1], network_yaml: BOND_VLAN('10.120.0', 'fd12::12') }],
    /static_network_config\[1\] \(host with MAC 52:54:00:bb:00:01\): network_yaml interfaces\[3\]\.ipv4\.address\[0\]\.ip must be an IPv4 address/,
  ],
  [
    'IPv6 address that does not parse',
    [{ ...GOOD[0], network_yaml: BOND_VLAN('10.120.0.11', 'fd12::11::1') }],
    /interfaces\[3\]\.ipv6\.address\[0\]\.ip must be an IPv6 address/,
  ],
  [
    'map missing an interface',
    [{ ...GOOD[0], mac_interface_map: [HOST_A[0]] }],
    /mac_interface_map has no entry for interface eno2/,
  ],
  [
    'unsupported key',
    [{ ...GOOD[0], network_yaml: GOOD[0]!.network_yaml.replace('- name: bond0\n', '- name: bond0\n  team: {}\n') }],
    /network_yaml interfaces\[2\]\.team is not supported/,
  ],
  [
    'not a list',
    { network_yaml: 'x' },
    /static_network_config (must be a list|of type \[\]models.HostStaticNetworkConfig)/,
  ],
];

const backend = backends().at(-1)!;

describe(`static network config through the API on ${backend.name}`, () => {
  let h: Harness;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const s = await backend.create();
    cleanup = s.cleanup;
    h = await startHarness(s, { runMonitor: false });
  });
  afterAll(async () => {
    await h?.close();
    await cleanup?.();
  });

  const listing = async () =>
    JSON.stringify(
      (await http('GET', `${h.api}/infra-envs`)).json.map((e: Record<string, unknown>) => [
        e.id,
        e.updated_at,
        e.static_network_config,
      ]),
    );

  it('two hosts with bond + VLAN + IPv6: the same keyfiles in the download, the minimal initrd and the Ignition', async () => {
    const created = await http('POST', `${h.api}/infra-envs`, {
      name: 'dc',
      pull_secret: PULL_SECRET,
      static_network_config: GOOD,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    const expected = ['bond0', 'bond0.120', 'eno1', 'eno2'].flatMap((n) => [
      `${n}-525400aa0001.nmconnection`,
      `${n}-525400bb0001.nmconnection`,
    ]);

    // static-network-config: a tar that GNU tar reads, every member 0600.
    const tar = await fetch(`${h.api}/infra-envs/${id}/downloads/files?file_name=static-network-config`);
    expect(tar.status).toBe(200);
    const dir = mkdtempSync(path.join(tmpdir(), 'snc-'));
    try {
      writeFileSync(path.join(dir, 'snc.tar'), Buffer.from(await tar.arrayBuffer()));
      const x = spawnSync('tar', ['-xf', 'snc.tar', '-C', dir, '--no-same-owner', '--same-permissions'], { cwd: dir });
      expect(x.status, x.stderr?.toString()).toBe(0);
      const names = readdirSync(dir)
        .filter((f) => f.endsWith('.nmconnection'))
        .sort();
      expect(names).toEqual([...expected].sort());
      const fromTar = new Map(names.map((n) => [n, readFileSync(path.join(dir, n), 'utf8')]));
      for (const n of names) expect(statSync(path.join(dir, n)).mode & 0o777, n).toBe(0o600);
      expect(fromTar.get('bond0-525400aa0001.nmconnection')).toContain(
        '\n[bond]\nmode=802.3ad\nlacp_rate=fast\nmiimon=100\n',
      );
      expect(fromTar.get('bond0.120-525400bb0001.nmconnection')).toContain('address1=10.120.0.12/24,10.120.0.1\n');
      expect(fromTar.get('bond0.120-525400bb0001.nmconnection')).toContain('address1=fd12::12/64\n');
      expect(fromTar.get('eno2-525400bb0001.nmconnection')).toContain('mac-address=52:54:00:BB:00:02\n');

      // The minimal initrd (minimal ISOs, PXE): etc/coreos-firstboot-network/, 0600, same bytes.
      const initrd = await fetch(`${h.api}/infra-envs/${id}/downloads/minimal-initrd`);
      expect(initrd.status).toBe(200);
      const members = (await readInitrd(Buffer.from(await initrd.arrayBuffer()))).filter(isRegularFile);
      expect(members.map((m) => m.path).sort()).toEqual(
        expected.map((n) => `etc/coreos-firstboot-network/${n}`).sort(),
      );
      for (const m of members) {
        expect(m.mode & 0o777).toBe(0o600);
        expect(m.data.toString('utf8')).toBe(fromTar.get(path.basename(m.path)));
      }

      // The discovery Ignition (full ISOs): /etc/NetworkManager/system-connections/, 0600, same bytes.
      const ign = (await http('GET', `${h.api}/infra-envs/${id}/downloads/files?file_name=discovery.ign`)).json as {
        storage: { files: { path: string; mode: number; contents: { source: string } }[] };
      };
      const nm = ign.storage.files.filter((f) => f.path.startsWith('/etc/NetworkManager/system-connections/'));
      expect(nm.map((f) => path.basename(f.path)).sort()).toEqual([...expected].sort());
      for (const f of nm) {
        expect(f.mode).toBe(0o600);
        expect(Buffer.from(f.contents.source.split(',')[1]!, 'base64').toString('utf8')).toBe(
          fromTar.get(path.basename(f.path)),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses each bad input with a 400 naming host and field, on create and update, and stores nothing', async () => {
    const base = await http('POST', `${h.api}/infra-envs`, {
      name: 'keep',
      pull_secret: PULL_SECRET,
      static_network_config: GOOD,
    });
    expect(base.status).toBe(201);
    const before = await listing();
    for (const [what, cfg, reason] of BAD) {
      const created = await http('POST', `${h.api}/infra-envs`, {
        name: 'bad',
        pull_secret: PULL_SECRET,
        static_network_config: cfg,
      });
      const patched = await http('PATCH', `${h.api}/infra-envs/${base.json.id}`, { static_network_config: cfg });
      for (const r of [created, patched]) {
        expect(r.status, `${what}: ${r.text}`).toBe(400);
        // upstream's body binding answers a wrongly typed field in `message` (go-openapi shape)
        expect(r.json.reason ?? r.json.message, what).toMatch(reason);
      }
    }
    expect(await listing()).toBe(before);
  });
});
