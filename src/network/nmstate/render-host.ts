// One host's keyfiles: every configured interface of its document as a NetworkManager
// connection profile that can only ever activate on this host.
//
// How each profile is tied to the host (facts from nm-settings-nmcli(5) and NetworkManager's
// device activation, see docs/operator/static-networking.md):
// - ethernet: `ethernet.mac-address` = the MAC mac_interface_map gives it; NetworkManager
//   applies a profile with a MAC only to the device with that permanent MAC, and never
//   looks at the logical name. A NIC no profile matches gets NetworkManager's automatic
//   DHCP profile ("Wired connection N"), so a host whose MACs match none uses DHCP.
// - bond, linux-bridge: `autoconnect=false`. A controller has no MAC to match, and a
//   profile matched by interface name would be created on every host. Its ports
//   (`master=<controller uuid>`, `slave-type=bond|bridge`, autoconnect, MAC-matched) bring
//   it up: NetworkManager activates a port's controller when the port activates.
// - vlan: autoconnect, created only over its parent. Over an ethernet, no `vlan.parent` and
//   `ethernet.mac-address` = the base NIC's MAC (the documented way to name the parent by
//   MAC); over a bond or bridge, `vlan.parent` = that controller profile's UUID: NetworkManager
//   activates such a VLAN only while that very profile is applied to the parent, and only
//   this host's ports apply it (docs/operator/static-networking.md notes the one residue).
// UUIDs and file names derive from the host's first MAC and the interface name: stable for
// the same input, distinct across hosts. Ports carry no [ipv4]/[ipv6] (the controller does).
// Does not: validate (parse-*.ts, host-binding.ts) or pack files (the callers).
import { createHash } from 'node:crypto';
import type { IpAddress, IpFamily } from '../address.js';
import { yamlError } from './errors.js';
import type { HostBinding } from './host-binding.js';
import { keyfileText, type KeyfileEntry, type KeyfileSection } from './keyfile-text.js';
import { carriesDns, familyKey, type NetInterface } from './model.js';
import type { ParsedDocument } from './parse-document.js';
import { ipSection, type IpPlacement } from './render-ip.js';

export interface Keyfile {
  /** File name, `<interface>-<host's first MAC, hex>.nmconnection`. */
  name: string;
  contents: string;
}

const NM_TYPE: Record<NetInterface['type'], string> = {
  ethernet: 'ethernet',
  bond: 'bond',
  vlan: 'vlan',
  'linux-bridge': 'bridge',
};

/** A name-based UUID (RFC 4122 version 5 layout over SHA-256): same input, same UUID. */
export function stableUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  const variant = (8 | (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Which interfaces carry the document's DNS servers and search domains, per family. */
function dnsPlacement(doc: ParsedDocument): Map<string, { servers: IpAddress[]; search: string[] }> {
  const out = new Map<string, { servers: IpAddress[]; search: string[] }>();
  const key = (name: string, fam: IpFamily) => `${name}/${fam}`;
  const add = (name: string, fam: IpFamily) => {
    const k = key(name, fam);
    if (!out.has(k)) out.set(k, { servers: [], search: [] });
    return out.get(k)!;
  };
  const hosts = doc.interfaces.filter((i) => i.state === 'up' && !doc.controllerOf.has(i.name));
  const serverTargets = new Set<string>();
  for (const fam of [4, 6] as const) {
    const servers = doc.dns.servers.filter((s) => s.family === fam);
    if (servers.length === 0) continue;
    const enabled = hosts.filter((i) => carriesDns(i[familyKey(fam)]));
    const withDefault = enabled.filter((i) =>
      doc.routes.some(
        (r) => r.nextHopInterface === i.name && r.destination.family === fam && r.destination.prefixLength === 0,
      ),
    );
    for (const i of withDefault.length > 0 ? withDefault : enabled.slice(0, 1)) {
      add(i.name, fam).servers.push(...servers);
      serverTargets.add(key(i.name, fam));
    }
  }
  if (doc.dns.search.length > 0) {
    let targets = [...serverTargets];
    if (targets.length === 0) {
      const first = hosts.find((i) => carriesDns(i.ipv4)) ?? hosts.find((i) => carriesDns(i.ipv6));
      if (!first) yamlError('dns-resolver.config.search', 'needs an up interface with addresses, DHCP or autoconf');
      targets = [key(first.name, carriesDns(first.ipv4) ? 4 : 6)];
    }
    // Search domains are not per family: once per interface, on the first family it got servers for.
    const done = new Set<string>();
    for (const t of targets.sort()) {
      const [name, fam] = t.split('/') as [string, string];
      if (done.has(name)) continue;
      done.add(name);
      add(name, Number(fam) as IpFamily).search.push(...doc.dns.search);
    }
  }
  return out;
}

export function renderHost(doc: ParsedDocument, binding: HostBinding): Keyfile[] {
  const hostKey = binding.macs[0]!.replaceAll(':', '').toLowerCase();
  const uuidOf = (name: string) => stableUuid(`bootsmith-nmstate/${hostKey}/${name}`);
  const byName = new Map(doc.interfaces.map((i) => [i.name, i]));
  const dns = dnsPlacement(doc);
  const files: Keyfile[] = [];
  for (const iface of doc.interfaces) {
    if (iface.state === 'absent' || (iface.state === 'down' && iface.type !== 'ethernet')) continue;
    // A down controller writes no profile, so its (down) ports name none: they only stay down.
    const owner = doc.controllerOf.get(iface.name);
    const controller = owner?.state === 'up' ? owner : undefined;
    const virtual = iface.type !== 'ethernet';
    const autoconnect = iface.state === 'up' && (iface.type === 'ethernet' || iface.type === 'vlan');
    const connection: KeyfileEntry[] = [
      ['id', iface.name],
      ['uuid', uuidOf(iface.name)],
      ['type', NM_TYPE[iface.type]],
    ];
    if (virtual) connection.push(['interface-name', iface.name]);
    connection.push(['autoconnect', String(autoconnect)]);
    if (autoconnect) connection.push(['autoconnect-priority', '1']);
    if (controller) {
      connection.push(['master', uuidOf(controller.name)]);
      connection.push(['slave-type', controller.type === 'bond' ? 'bond' : 'bridge']);
    }
    const sections: KeyfileSection[] = [{ name: 'connection', entries: connection }];

    const ethernet: KeyfileEntry[] = [];
    if (iface.type === 'ethernet') ethernet.push(['mac-address', binding.macOf.get(iface.name)!]);
    const base = iface.vlan ? byName.get(iface.vlan.baseIface)! : undefined;
    if (base?.type === 'ethernet') ethernet.push(['mac-address', binding.macOf.get(base.name)!]);
    if (virtual && iface.macAddress) ethernet.push(['cloned-mac-address', iface.macAddress]);
    if (iface.mtu !== undefined) ethernet.push(['mtu', String(iface.mtu)]);
    if (ethernet.length > 0) sections.push({ name: 'ethernet', entries: ethernet });

    if (iface.bond) {
      const entries: KeyfileEntry[] = [['mode', iface.bond.mode]];
      for (const [k, v] of [...iface.bond.options].sort(([a], [b]) => (a < b ? -1 : 1))) entries.push([k, v]);
      sections.push({ name: 'bond', entries });
    }
    if (iface.bridge) {
      const s = iface.bridge.stp;
      const entries: KeyfileEntry[] = [];
      if (iface.bridge.macAgeingTime !== undefined) entries.push(['ageing-time', String(iface.bridge.macAgeingTime)]);
      if (s.forwardDelay !== undefined) entries.push(['forward-delay', String(s.forwardDelay)]);
      if (s.helloTime !== undefined) entries.push(['hello-time', String(s.helloTime)]);
      if (s.maxAge !== undefined) entries.push(['max-age', String(s.maxAge)]);
      if (s.priority !== undefined) entries.push(['priority', String(s.priority)]);
      if (s.enabled !== undefined) entries.push(['stp', String(s.enabled)]);
      sections.push({ name: 'bridge', entries });
    }
    if (controller?.bridge) {
      const port = controller.bridge.ports.find((p) => p.name === iface.name)!;
      const entries: KeyfileEntry[] = [];
      if (port.stpHairpinMode !== undefined) entries.push(['hairpin-mode', String(port.stpHairpinMode)]);
      if (port.stpPathCost !== undefined) entries.push(['path-cost', String(port.stpPathCost)]);
      if (port.stpPriority !== undefined) entries.push(['priority', String(port.stpPriority)]);
      if (entries.length > 0) sections.push({ name: 'bridge-port', entries });
    }
    if (iface.vlan && base) {
      const entries: KeyfileEntry[] = [['id', String(iface.vlan.id)]];
      if (base.type !== 'ethernet') entries.push(['parent', uuidOf(base.name)]);
      sections.push({ name: 'vlan', entries });
    }
    if (!controller) {
      for (const fam of [4, 6] as const) {
        const placed = dns.get(`${iface.name}/${fam}`);
        const place: IpPlacement = {
          routes: doc.routes.filter((r) => r.nextHopInterface === iface.name && r.destination.family === fam),
          dnsServers: placed?.servers ?? [],
          dnsSearch: placed?.search ?? [],
        };
        sections.push(ipSection(iface[familyKey(fam)], fam, place));
      }
    }
    files.push({ name: `${iface.name}-${hostKey}.nmconnection`, contents: keyfileText(sections) });
  }
  return files;
}
