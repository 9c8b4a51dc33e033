// nmstate's `routes.config` list: destination, next-hop-address, next-hop-interface, metric,
// table-id, state.
//
// Does: validate each route (destination `address/length`, next hop of the same family,
// metric and table id u32). A route without next-hop-address is on-link and must name its
// interface. `state: absent` asks nmstate to remove matching routes: a discovery host
// boots with none, so such entries produce nothing (they are still validated).
// Does not: pick the interface of a route without next-hop-interface (parse-document.ts does,
// from the interfaces' subnets) or render routes.
import { parseIpAddress, parseIpPrefix, type IpAddress, type IpPrefix } from '../address.js';
import { yamlError } from './errors.js';
import { MAX_ROUTES, MAX_U32 } from './limits.js';
import { child, item, list, mapping, oneOf, optionalInteger } from './reader.js';
import { isSafeInterfaceName } from './parse-interface.js';

export interface RouteSpec {
  index: number;
  destination: IpPrefix;
  nextHop?: IpAddress;
  nextHopInterface?: string;
  metric?: number;
  tableId?: number;
}

export function parseRoutes(raw: unknown): RouteSpec[] {
  if (raw === undefined || raw === null) return [];
  const m = mapping(raw, 'routes', ['config']);
  const out: RouteSpec[] = [];
  list(m.config, 'routes.config', MAX_ROUTES).forEach((r, index) => {
    const at = item('routes.config', index);
    const rm = mapping(r, at, ['destination', 'next-hop-address', 'next-hop-interface', 'metric', 'table-id', 'state']);
    const absent = rm.state !== undefined && oneOf(rm.state, child(at, 'state'), ['absent']) === 'absent';
    const destination = parseIpPrefix(rm.destination);
    if (!destination) yamlError(child(at, 'destination'), 'must be an IP prefix (address/length)');
    const route: RouteSpec = { index, destination };
    if (rm['next-hop-address'] !== undefined && rm['next-hop-address'] !== null && rm['next-hop-address'] !== '') {
      const nextHop = parseIpAddress(rm['next-hop-address']);
      if (!nextHop || nextHop.family !== destination.family) {
        yamlError(child(at, 'next-hop-address'), `must be an IPv${destination.family} address`);
      }
      route.nextHop = nextHop;
    }
    if (rm['next-hop-interface'] !== undefined) {
      if (!isSafeInterfaceName(rm['next-hop-interface'])) {
        yamlError(child(at, 'next-hop-interface'), 'is not an interface name');
      }
      route.nextHopInterface = rm['next-hop-interface'];
    }
    const metric = optionalInteger(rm.metric, child(at, 'metric'), 0, MAX_U32);
    if (metric !== undefined) route.metric = metric;
    const table = optionalInteger(rm['table-id'], child(at, 'table-id'), 0, MAX_U32);
    if (table !== undefined) route.tableId = table;
    if (!absent && route.nextHop === undefined && route.nextHopInterface === undefined) {
      yamlError(child(at, 'next-hop-interface'), 'is required for a route without next-hop-address');
    }
    if (!absent) out.push(route);
  });
  return out;
}
