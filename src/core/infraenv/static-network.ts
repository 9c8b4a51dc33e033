// Turns an InfraEnv's static_network_config (nmstate YAML + MAC map) into NetworkManager keyfiles.
//
// Supports the common nmstate subset: ethernet interfaces with ipv4/ipv6 static
// addresses or DHCP/autoconf, dns-resolver.config, and routes.config (a default
// route becomes the keyfile gateway, others become routeN entries). Each keyfile
// matches its NIC by MAC (from mac_interface_map), so no interface renaming script
// is needed. Bonds, VLANs and bridges are rejected with a 400 (nmstatectl is not run).
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { BadRequestError } from '../../errors.js';
import type { StaticNetworkConfigEntry } from '../model.js';

export interface KeyfileOut {
  /** File name, e.g. `eth0.nmconnection`. */
  name: string;
  contents: string;
}

const MAC_RE = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateStaticNetworkConfig(raw: unknown): StaticNetworkConfigEntry[] {
  if (!Array.isArray(raw)) throw new BadRequestError('static_network_config must be a list');
  const seenMacs = new Set<string>();
  const entries = raw.map((e, i): StaticNetworkConfigEntry => {
    if (!isObj(e)) throw new BadRequestError(`static_network_config[${i}] must be an object`);
    if (typeof e.network_yaml !== 'string' || e.network_yaml.trim() === '') {
      throw new BadRequestError(`static_network_config[${i}].network_yaml is required`);
    }
    if (!Array.isArray(e.mac_interface_map) || e.mac_interface_map.length === 0) {
      throw new BadRequestError(`static_network_config[${i}].mac_interface_map is required`);
    }
    const map = e.mac_interface_map.map((m: unknown, j: number) => {
      if (!isObj(m) || typeof m.mac_address !== 'string' || !MAC_RE.test(m.mac_address)) {
        throw new BadRequestError(`static_network_config[${i}].mac_interface_map[${j}].mac_address is not a MAC address`);
      }
      const mac = m.mac_address.toLowerCase();
      if (seenMacs.has(mac)) throw new BadRequestError(`MAC address ${mac} appears in more than one static network config`);
      seenMacs.add(mac);
      if (m.logical_nic_name !== undefined && typeof m.logical_nic_name !== 'string') {
        throw new BadRequestError(`static_network_config[${i}].mac_interface_map[${j}].logical_nic_name must be a string`);
      }
      return { mac_address: m.mac_address, ...(m.logical_nic_name ? { logical_nic_name: m.logical_nic_name as string } : {}) };
    });
    const entry = { network_yaml: e.network_yaml, mac_interface_map: map };
    keyfilesForEntry(entry, i); // validates the YAML
    return entry;
  });
  return entries;
}

export function generateKeyfiles(config: readonly StaticNetworkConfigEntry[]): KeyfileOut[] {
  return config.flatMap((entry, i) => keyfilesForEntry(entry, i));
}

function keyfilesForEntry(entry: StaticNetworkConfigEntry, index: number): KeyfileOut[] {
  const at = `static_network_config[${index}].network_yaml`;
  let doc: unknown;
  try {
    doc = YAML.parse(entry.network_yaml);
  } catch {
    throw new BadRequestError(`${at} is not valid YAML`);
  }
  if (!isObj(doc) || !Array.isArray(doc.interfaces) || doc.interfaces.length === 0) {
    throw new BadRequestError(`${at} must have a non-empty interfaces list`);
  }
  const dnsCfg = isObj(doc['dns-resolver']) && isObj((doc['dns-resolver'] as Obj).config) ? ((doc['dns-resolver'] as Obj).config as Obj) : {};
  const dnsServers = Array.isArray(dnsCfg.server) ? dnsCfg.server.map(String) : [];
  const dnsSearch = Array.isArray(dnsCfg.search) ? dnsCfg.search.map(String) : [];
  const routes = isObj(doc.routes) && Array.isArray((doc.routes as Obj).config) ? ((doc.routes as Obj).config as unknown[]).filter(isObj) : [];

  const out: KeyfileOut[] = [];
  for (const [j, iface] of (doc.interfaces as unknown[]).entries()) {
    if (!isObj(iface) || typeof iface.name !== 'string' || !/^[A-Za-z0-9_.-]{1,15}$/.test(iface.name)) {
      throw new BadRequestError(`${at}: interfaces[${j}].name is required (1-15 characters)`);
    }
    const name = iface.name;
    const type = iface.type ?? 'ethernet';
    if (type !== 'ethernet') throw new BadRequestError(`${at}: interface ${name} has unsupported type ${String(type)} (only ethernet)`);
    if (iface.state !== undefined && iface.state !== 'up') continue;
    const mac =
      entry.mac_interface_map.find((m) => m.logical_nic_name === name)?.mac_address ??
      (typeof iface['mac-address'] === 'string' ? iface['mac-address'] : undefined);
    if (!mac || !MAC_RE.test(mac)) throw new BadRequestError(`${at}: no MAC address mapped to interface ${name}`);

    const lines = [
      '[connection]',
      `id=${name}`,
      `uuid=${stableUuid(`${mac.toLowerCase()}/${name}`)}`,
      'type=ethernet',
      'autoconnect=true',
      'autoconnect-priority=1',
      '',
      '[ethernet]',
      `mac-address=${mac.toUpperCase()}`,
      ...(typeof iface.mtu === 'number' ? [`mtu=${iface.mtu}`] : []),
      '',
    ];
    for (const family of ['ipv4', 'ipv6'] as const) {
      lines.push(...ipSection(family, iface[family], name, routes, dnsServers, dnsSearch, `${at}: ${name}.${family}`), '');
    }
    out.push({ name: `${name}.nmconnection`, contents: lines.join('\n') });
  }
  return out;
}

function ipSection(
  family: 'ipv4' | 'ipv6', cfg: unknown, ifname: string, routes: Obj[], dns: string[], search: string[], at: string,
): string[] {
  const lines = [`[${family}]`];
  if (!isObj(cfg) || cfg.enabled === false) {
    lines.push(family === 'ipv4' ? 'method=disabled' : 'method=disabled');
    return lines;
  }
  const isV6 = family === 'ipv6';
  const familyDns = dns.filter((s) => s.includes(':') === isV6);
  const dynamic = cfg.dhcp === true || (isV6 && cfg.autoconf === true);
  if (dynamic) {
    lines.push('method=auto');
  } else {
    const addrs = Array.isArray(cfg.address) ? cfg.address : [];
    if (addrs.length === 0) throw new BadRequestError(`${at} needs dhcp or at least one address`);
    lines.push('method=manual');
    const gw = routes.find(
      (r) => (r.destination === (isV6 ? '::/0' : '0.0.0.0/0')) && (r['next-hop-interface'] === undefined || r['next-hop-interface'] === ifname),
    );
    addrs.forEach((a: unknown, k: number) => {
      if (!isObj(a) || typeof a.ip !== 'string' || typeof a['prefix-length'] !== 'number') {
        throw new BadRequestError(`${at}.address[${k}] needs ip and prefix-length`);
      }
      const gateway = k === 0 && gw && typeof gw['next-hop-address'] === 'string' ? `,${gw['next-hop-address']}` : '';
      lines.push(`address${k + 1}=${a.ip}/${a['prefix-length']}${gateway}`);
    });
    let n = 1;
    for (const r of routes) {
      if (r === gw || typeof r.destination !== 'string' || typeof r['next-hop-address'] !== 'string') continue;
      if (r.destination.includes(':') !== isV6) continue;
      if (r['next-hop-interface'] !== undefined && r['next-hop-interface'] !== ifname) continue;
      lines.push(`route${n++}=${r.destination},${r['next-hop-address']}${typeof r.metric === 'number' ? `,${r.metric}` : ''}`);
    }
  }
  if (familyDns.length > 0) lines.push(`dns=${familyDns.join(';')};`);
  if (search.length > 0) lines.push(`dns-search=${search.join(';')};`);
  return lines;
}

function stableUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
