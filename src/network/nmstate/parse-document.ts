// One host's network_yaml, parsed and checked as a whole: nmstate text → NetworkDocument.
//
// Does: parse the YAML within budgets (size, aliases, unique keys); accept the top-level keys
// interfaces, routes and dns-resolver; parse each part; then check the references between
// interfaces: every bond/bridge port and VLAN base-iface names an interface of the document
// that is not absent, of a type that can play that role, in a matching state; a port
// belongs to one controller, carries no IP configuration (NetworkManager keeps IP on the
// controller) and is not a VLAN base; an up bond or bridge has at least one port; no
// interface depends on itself. Routes get their interface (given, or the one up interface
// whose static subnet holds the next hop); DNS servers need an interface of their family.
// Does not: bind interfaces to MACs (host-binding.ts) or render keyfiles.
import YAML from 'yaml';
import type { IpFamily } from '../address.js';
import { yamlError } from './errors.js';
import { MAX_INTERFACES, MAX_NETWORK_YAML_BYTES, MAX_YAML_ALIASES } from './limits.js';
import {
  carriesDns,
  familyKey,
  type InterfaceType,
  type NetInterface,
  type NetworkDocument,
  type Route,
} from './model.js';
import { parseDns } from './parse-dns.js';
import { parseInterface } from './parse-interface.js';
import { parseRoutes, type RouteSpec } from './parse-routes.js';
import { child, item, list, mapping } from './reader.js';
import { inSubnet } from './subnet.js';

const TOP_KEYS = ['interfaces', 'routes', 'dns-resolver'];
/** Which interface types may be a port of which controller, or a VLAN's base. */
const PORT_TYPES: Record<'bond' | 'linux-bridge', readonly InterfaceType[]> = {
  bond: ['ethernet'],
  'linux-bridge': ['ethernet', 'bond', 'vlan'],
};
const VLAN_BASE_TYPES: readonly InterfaceType[] = ['ethernet', 'bond', 'linux-bridge'];

export interface ParsedDocument extends NetworkDocument {
  /** Port name → its controller. */
  controllerOf: Map<string, NetInterface>;
}

function parseYaml(text: string): unknown {
  if (Buffer.byteLength(text, 'utf8') > MAX_NETWORK_YAML_BYTES) {
    yamlError('', `is larger than ${MAX_NETWORK_YAML_BYTES} bytes`);
  }
  try {
    return YAML.parse(text, { maxAliasCount: MAX_YAML_ALIASES, uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    const what = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : 'unreadable';
    return yamlError('', `is not valid YAML (${what})`);
  }
}

export function parseDocument(text: string): ParsedDocument {
  const doc = mapping(parseYaml(text), '', TOP_KEYS);
  const rawIfaces = list(doc.interfaces, 'interfaces', MAX_INTERFACES);
  if (rawIfaces.length === 0) yamlError('interfaces', 'must be a non-empty list');
  const interfaces = rawIfaces.map((raw, i) => parseInterface(raw, i));
  const byName = new Map<string, NetInterface>();
  for (const iface of interfaces) {
    if (byName.has(iface.name)) yamlError(item('interfaces', iface.index) + '.name', `names ${iface.name} twice`);
    byName.set(iface.name, iface);
  }
  const controllerOf = checkTopology(interfaces, byName);
  const routes = parseRoutes(doc.routes).map((r) => resolveRoute(r, byName, controllerOf));
  const dns = parseDns(doc['dns-resolver']);
  dns.servers.forEach((s, k) => {
    const usable = interfaces.some(
      (i) => i.state === 'up' && !controllerOf.has(i.name) && carriesDns(i[familyKey(s.family)]),
    );
    if (!usable)
      yamlError(
        item('dns-resolver.config.server', k),
        `needs an up interface with IPv${s.family} addresses, DHCP or autoconf`,
      );
  });
  return { interfaces, routes, dns, controllerOf };
}

/** Looks a referenced interface up, refusing names not in the document or absent ones. */
function referenced(name: string, at: string, byName: Map<string, NetInterface>): NetInterface {
  const target = byName.get(name);
  if (!target) yamlError(at, `names ${name}, which is not an interface of this document`);
  if (target.state === 'absent') yamlError(at, `names ${name}, which is absent`);
  return target;
}

function checkTopology(interfaces: NetInterface[], byName: Map<string, NetInterface>): Map<string, NetInterface> {
  const controllerOf = new Map<string, NetInterface>();
  for (const iface of interfaces) {
    if (iface.state === 'absent') continue;
    const path = item('interfaces', iface.index);
    const ports = iface.bond
      ? iface.bond.ports.map((p, k) => ({ name: p, at: item(child(path, 'link-aggregation.port'), k) }))
      : iface.bridge
        ? iface.bridge.ports.map((p, k) => ({ name: p.name, at: child(item(child(path, 'bridge.port'), k), 'name') }))
        : [];
    if ((iface.type === 'bond' || iface.type === 'linux-bridge') && iface.state === 'up' && ports.length === 0) {
      yamlError(
        child(path, iface.type === 'bond' ? 'link-aggregation.port' : 'bridge.port'),
        `must list at least one port: ${iface.name} is bound to its host through its ports' MAC addresses`,
      );
    }
    for (const { name, at } of ports) {
      const port = referenced(name, at, byName);
      const allowed = PORT_TYPES[iface.type as 'bond' | 'linux-bridge'];
      if (!allowed.includes(port.type))
        yamlError(at, `names ${name} (${port.type}); ports of a ${iface.type} are ${allowed.join(', ')}`);
      if (port === iface) yamlError(at, `names ${name} itself`);
      const other = controllerOf.get(name);
      if (other) yamlError(at, `names ${name}, already a port of ${other.name}`);
      if (port.state !== iface.state)
        yamlError(at, `names ${name}, which is ${port.state} while ${iface.name} is ${iface.state}`);
      for (const fam of ['ipv4', 'ipv6'] as const) {
        if (port[fam].enabled) {
          yamlError(
            child(item('interfaces', port.index), fam),
            `must be disabled: ${name} is a port of ${iface.name}, which carries the IP configuration`,
          );
        }
      }
      controllerOf.set(name, iface);
    }
  }
  for (const iface of interfaces) {
    if (iface.state === 'absent' || !iface.vlan) continue;
    const at = child(item('interfaces', iface.index), 'vlan.base-iface');
    const base = referenced(iface.vlan.baseIface, at, byName);
    if (!VLAN_BASE_TYPES.includes(base.type))
      yamlError(at, `names ${base.name} (${base.type}); a VLAN's base is ${VLAN_BASE_TYPES.join(', ')}`);
    if (controllerOf.has(base.name))
      yamlError(
        at,
        `names ${base.name}, a port of ${controllerOf.get(base.name)!.name}: put the VLAN on the controller`,
      );
    if (iface.state === 'up' && base.state !== 'up') yamlError(at, `names ${base.name}, which is ${base.state}`);
  }
  // A controller depends on its ports (they bring it up), a VLAN on its base: no cycles.
  const portsOf = (i: NetInterface): string[] => i.bond?.ports ?? i.bridge?.ports.map((p) => p.name) ?? [];
  const parents = (i: NetInterface): NetInterface[] =>
    [...portsOf(i), ...(i.vlan ? [i.vlan.baseIface] : [])]
      .map((n) => byName.get(n))
      .filter((p): p is NetInterface => p !== undefined);
  const done = new Set<NetInterface>();
  const visit = (i: NetInterface, onPath: Set<NetInterface>): void => {
    if (done.has(i)) return;
    if (onPath.has(i)) yamlError(item('interfaces', i.index), `${i.name} depends on itself`);
    onPath.add(i);
    for (const p of parents(i)) visit(p, onPath);
    onPath.delete(i);
    done.add(i);
  };
  for (const iface of interfaces) visit(iface, new Set());
  return controllerOf;
}

function resolveRoute(r: RouteSpec, byName: Map<string, NetInterface>, controllerOf: Map<string, NetInterface>): Route {
  const at = item('routes.config', r.index);
  const family: IpFamily = r.destination.family;
  const fam = familyKey(family);
  let name = r.nextHopInterface;
  if (name === undefined) {
    const holders = [...byName.values()].filter(
      (i) => i.state === 'up' && !controllerOf.has(i.name) && i[fam].addresses.some((a) => inSubnet(r.nextHop!, a)),
    );
    if (holders.length !== 1) {
      yamlError(
        child(at, 'next-hop-interface'),
        holders.length === 0
          ? `is required: no interface has a static IPv${family} subnet holding ${r.nextHop!.text}`
          : `is required: ${holders.map((h) => h.name).join(' and ')} all hold ${r.nextHop!.text}`,
      );
    }
    name = holders[0]!.name;
  }
  const iface = referenced(name, child(at, 'next-hop-interface'), byName);
  if (iface.state !== 'up') yamlError(child(at, 'next-hop-interface'), `names ${name}, which is ${iface.state}`);
  if (controllerOf.has(name))
    yamlError(child(at, 'next-hop-interface'), `names ${name}, a port of ${controllerOf.get(name)!.name}`);
  if (!iface[fam].enabled) yamlError(child(at, 'next-hop-interface'), `names ${name}, which has IPv${family} disabled`);
  const route: Route = { index: r.index, destination: r.destination, nextHopInterface: name };
  if (r.nextHop) route.nextHop = r.nextHop;
  if (r.metric !== undefined) route.metric = r.metric;
  if (r.tableId !== undefined) route.tableId = r.tableId;
  return route;
}
