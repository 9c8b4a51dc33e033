// Turns an InfraEnv's static_network_config (nmstate YAML + MAC map) into NetworkManager keyfiles.
//
// Supports the common nmstate subset: ethernet interfaces with ipv4/ipv6 static
// addresses or DHCP/autoconf, dns-resolver.config, and routes.config (a default
// route becomes the keyfile gateway, others become routeN entries). Each keyfile
// matches its NIC by MAC (from mac_interface_map), so no interface renaming script
// is needed. Bonds, VLANs and bridges are rejected with a 400 (nmstatectl is not run).
// Addresses, prefixes, next hops, DNS servers and MACs are parsed (src/network/address.ts)
// and written back in canonical form; interface names follow the kernel's rules and DNS
// search entries are domain names: no caller text can add a line or a section to a keyfile.
// Errors name the host (its first MAC) and the field path inside network_yaml.
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { BadRequestError } from '../../errors.js';
import type { StaticNetworkConfigEntry } from '../model.js';
import {
  isInterfaceName,
  isPrefixLength,
  MAX_INTERFACE_NAME_BYTES,
  parseIpAddress,
  parseIpPrefix,
  parseMacAddress,
  type IpAddress,
  type IpFamily,
  type IpPrefix,
} from '../../network/address.js';

export interface KeyfileOut {
  /** File name, e.g. `eth0.nmconnection`. */
  name: string;
  contents: string;
}

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
      if (!isObj(m) || !parseMacAddress(m.mac_address)) {
        throw new BadRequestError(
          `static_network_config[${i}].mac_interface_map[${j}].mac_address is not a MAC address`,
        );
      }
      const mac = (m.mac_address as string).toLowerCase();
      if (seenMacs.has(mac))
        throw new BadRequestError(`MAC address ${mac} appears in more than one static network config`);
      seenMacs.add(mac);
      if (m.logical_nic_name !== undefined && m.logical_nic_name !== '' && !isInterfaceName(m.logical_nic_name)) {
        throw new BadRequestError(
          `static_network_config[${i}].mac_interface_map[${j}].logical_nic_name must be an interface name`,
        );
      }
      return {
        mac_address: m.mac_address as string,
        ...(m.logical_nic_name ? { logical_nic_name: m.logical_nic_name as string } : {}),
      };
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

/** nmstate's DNS search entries: dotted names of letters, digits, `-` and `_` (RFC 1035 lengths). */
const DOMAIN_RE =
  /^(?=.{1,253}\.?$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;
/** Largest MTU Linux accepts on any link (IP_MAX_MTU); the smallest IPv4 needs (68). */
const MTU_RANGE = [68, 65535] as const;
/** Route metrics are u32 in NetworkManager. */
const MAX_ROUTE_METRIC = 0xffffffff;

interface Route {
  destination: IpPrefix;
  nextHop: IpAddress;
  nextHopInterface?: string;
  metric?: number;
}

/** A 400 that names the host (its first MAC) and the field path inside its network_yaml. */
function fieldError(entry: StaticNetworkConfigEntry, index: number, path: string, what: string): BadRequestError {
  const host = entry.mac_interface_map[0]?.mac_address ?? 'unknown';
  return new BadRequestError(`static_network_config[${index}] (host with MAC ${host}): network_yaml ${path} ${what}`, {
    field: `static_network_config[${index}].network_yaml.${path}`,
  });
}

function parseRoutes(entry: StaticNetworkConfigEntry, index: number, raw: unknown): Route[] {
  if (raw === undefined || raw === null) return [];
  if (!isObj(raw)) throw fieldError(entry, index, 'routes', 'must be a mapping');
  const cfg = raw.config ?? [];
  if (!Array.isArray(cfg)) throw fieldError(entry, index, 'routes.config', 'must be a list');
  return cfg.map((r: unknown, k: number): Route => {
    const at = `routes.config[${k}]`;
    if (!isObj(r)) throw fieldError(entry, index, at, 'must be a mapping');
    const destination = parseIpPrefix(r.destination);
    if (!destination) throw fieldError(entry, index, `${at}.destination`, 'must be an IP prefix (address/length)');
    const nextHop = parseIpAddress(r['next-hop-address']);
    if (!nextHop || nextHop.family !== destination.family) {
      throw fieldError(entry, index, `${at}.next-hop-address`, `must be an IPv${destination.family} address`);
    }
    const route: Route = { destination, nextHop };
    const ifname = r['next-hop-interface'];
    if (ifname !== undefined) {
      if (!isInterfaceName(ifname))
        throw fieldError(entry, index, `${at}.next-hop-interface`, 'is not an interface name');
      route.nextHopInterface = ifname;
    }
    if (r.metric !== undefined) {
      if (typeof r.metric !== 'number' || !Number.isInteger(r.metric) || r.metric < 0 || r.metric > MAX_ROUTE_METRIC) {
        throw fieldError(entry, index, `${at}.metric`, `must be an integer from 0 to ${MAX_ROUTE_METRIC}`);
      }
      route.metric = r.metric;
    }
    return route;
  });
}

function parseDns(
  entry: StaticNetworkConfigEntry,
  index: number,
  raw: unknown,
): { servers: IpAddress[]; search: string[] } {
  if (raw === undefined || raw === null) return { servers: [], search: [] };
  if (!isObj(raw)) throw fieldError(entry, index, 'dns-resolver', 'must be a mapping');
  const cfg = raw.config ?? {};
  if (!isObj(cfg)) throw fieldError(entry, index, 'dns-resolver.config', 'must be a mapping');
  const list = (key: string): unknown[] => {
    const v = cfg[key] ?? [];
    if (!Array.isArray(v)) throw fieldError(entry, index, `dns-resolver.config.${key}`, 'must be a list');
    return v;
  };
  const servers = list('server').map((s, k) => {
    const ip = parseIpAddress(s);
    if (!ip) throw fieldError(entry, index, `dns-resolver.config.server[${k}]`, 'must be an IP address');
    return ip;
  });
  const search = list('search').map((s, k) => {
    if (typeof s !== 'string' || !DOMAIN_RE.test(s))
      throw fieldError(entry, index, `dns-resolver.config.search[${k}]`, 'must be a domain name');
    return s;
  });
  return { servers, search };
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
  const dns = parseDns(entry, index, doc['dns-resolver']);
  const routes = parseRoutes(entry, index, doc.routes);

  const out: KeyfileOut[] = [];
  const names = new Set<string>();
  for (const [j, iface] of (doc.interfaces as unknown[]).entries()) {
    if (!isObj(iface) || !isInterfaceName(iface.name)) {
      throw fieldError(
        entry,
        index,
        `interfaces[${j}].name`,
        `is required: an interface name (1-${MAX_INTERFACE_NAME_BYTES} bytes, no "/", ":" or blanks)`,
      );
    }
    const name = iface.name;
    if (names.has(name)) throw fieldError(entry, index, `interfaces[${j}].name`, 'names an interface twice');
    names.add(name);
    const type = iface.type ?? 'ethernet';
    if (type !== 'ethernet')
      throw new BadRequestError(`${at}: interface ${name} has unsupported type ${String(type)} (only ethernet)`);
    if (iface.state !== undefined && iface.state !== 'up') continue;
    const mappedMac = entry.mac_interface_map.find((m) => m.logical_nic_name === name)?.mac_address;
    if (mappedMac === undefined && iface['mac-address'] !== undefined && !parseMacAddress(iface['mac-address'])) {
      throw fieldError(entry, index, `interfaces[${j}].mac-address`, 'is not a MAC address');
    }
    const mac = parseMacAddress(mappedMac ?? iface['mac-address']);
    if (!mac) throw new BadRequestError(`${at}: no MAC address mapped to interface ${name}`);
    if (
      iface.mtu !== undefined &&
      (typeof iface.mtu !== 'number' ||
        !Number.isInteger(iface.mtu) ||
        iface.mtu < MTU_RANGE[0] ||
        iface.mtu > MTU_RANGE[1])
    ) {
      throw fieldError(
        entry,
        index,
        `interfaces[${j}].mtu`,
        `must be an integer from ${MTU_RANGE[0]} to ${MTU_RANGE[1]}`,
      );
    }

    const lines = [
      '[connection]',
      `id=${name}`,
      `uuid=${stableUuid(`${mac.toLowerCase()}/${name}`)}`,
      'type=ethernet',
      'autoconnect=true',
      'autoconnect-priority=1',
      '',
      '[ethernet]',
      `mac-address=${mac}`,
      ...(typeof iface.mtu === 'number' ? [`mtu=${iface.mtu}`] : []),
      '',
    ];
    for (const family of ['ipv4', 'ipv6'] as const) {
      const ctx = { entry, index, path: `interfaces[${j}].${family}` };
      lines.push(...ipSection(family, iface[family], name, routes, dns, ctx), '');
    }
    out.push({ name: `${name}.nmconnection`, contents: lines.join('\n') });
  }
  return out;
}

function ipSection(
  family: 'ipv4' | 'ipv6',
  cfg: unknown,
  ifname: string,
  routes: readonly Route[],
  dns: { servers: IpAddress[]; search: string[] },
  where: { entry: StaticNetworkConfigEntry; index: number; path: string },
): string[] {
  const lines = [`[${family}]`];
  if (!isObj(cfg) || cfg.enabled === false) {
    lines.push('method=disabled');
    return lines;
  }
  const fam: IpFamily = family === 'ipv4' ? 4 : 6;
  const familyDns = dns.servers.filter((s) => s.family === fam).map((s) => s.text);
  const dynamic = cfg.dhcp === true || (fam === 6 && cfg.autoconf === true);
  if (dynamic) {
    lines.push('method=auto');
  } else {
    const addrs = cfg.address ?? [];
    if (!Array.isArray(addrs)) throw fieldError(where.entry, where.index, `${where.path}.address`, 'must be a list');
    if (addrs.length === 0)
      throw new BadRequestError(
        `static_network_config[${where.index}].network_yaml: ${ifname}.${family} needs dhcp or at least one address`,
      );
    lines.push('method=manual');
    const ours = routes.filter(
      (r) => r.destination.family === fam && (r.nextHopInterface === undefined || r.nextHopInterface === ifname),
    );
    const gw = ours.find(
      (r) => r.destination.prefixLength === 0 && r.destination.text === (fam === 6 ? '::' : '0.0.0.0'),
    );
    addrs.forEach((a: unknown, k: number) => {
      const at = `${where.path}.address[${k}]`;
      if (!isObj(a)) throw fieldError(where.entry, where.index, at, 'needs ip and prefix-length');
      const ip = parseIpAddress(a.ip);
      if (!ip || ip.family !== fam)
        throw fieldError(where.entry, where.index, `${at}.ip`, `must be an IPv${fam} address`);
      if (!isPrefixLength(fam, a['prefix-length'])) {
        throw fieldError(
          where.entry,
          where.index,
          `${at}.prefix-length`,
          `must be an integer from 0 to ${fam === 4 ? 32 : 128}`,
        );
      }
      const gateway = k === 0 && gw ? `,${gw.nextHop.text}` : '';
      lines.push(`address${k + 1}=${ip.text}/${a['prefix-length']}${gateway}`);
    });
    let n = 1;
    for (const r of ours) {
      if (r === gw) continue;
      lines.push(
        `route${n++}=${r.destination.text}/${r.destination.prefixLength},${r.nextHop.text}${r.metric !== undefined ? `,${r.metric}` : ''}`,
      );
    }
  }
  if (familyDns.length > 0) lines.push(`dns=${familyDns.join(';')};`);
  if (dns.search.length > 0) lines.push(`dns-search=${dns.search.join(';')};`);
  return lines;
}

function stableUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
