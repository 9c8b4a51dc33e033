// Which address of this host BMCs and booted hosts reach the service on, for the URLs it hands
// out when IMAGE_SERVICE_BASE_URL / SERVICE_BASE_URL are not set.
//
// Does: choose, as a pure function of the address the listener is bound to and the host's
// default routes and interface addresses (./host-routes.ts):
//   - bound to a loopback address: loopback (only this machine can reach it; said at start);
//   - bound to one specific address: that address;
//   - bound to every address (0.0.0.0, ::): the address of the default route's interface
//     (lowest metric; IPv4 before IPv6), else the only non-loopback, non-link-local address;
//   - else nothing, with the reason (the service then refuses to start, see ./reachability.ts).
// Does NOT: read anything, or build URLs. Next: ./reachability.ts.
import { isIP } from 'node:net';
import type { DefaultRoute, HostNetwork, InterfaceAddress } from './host-routes.js';

export type AddressChoice =
  | { kind: 'loopback'; address: string }
  | {
      kind: 'chosen';
      address: string;
      /** The interface it belongs to (unknown for a specific listen address). */
      iface: string | undefined;
      how: 'listen-address' | 'default-route' | 'only-address';
    }
  | { kind: 'none'; problem: string };

/** True for 0.0.0.0 and :: (and an empty bind address, which Node treats as ::). */
export function isWildcard(address: string): boolean {
  return address === '' || address === '0.0.0.0' || address === '::' || address === '::0';
}

/** 127.0.0.0/8, ::1, IPv4-mapped 127.x, and the name `localhost` (brackets allowed). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(h);
  return false;
}

function linkLocal(a: InterfaceAddress): boolean {
  return a.family === 'IPv4' ? a.address.startsWith('169.254.') : /^fe[89ab]/i.test(a.address);
}

/** An address another machine can be sent to: not loopback, not link-local. */
function routable(a: InterfaceAddress): boolean {
  return !a.internal && !isLoopbackHost(a.address) && !linkLocal(a);
}

function familiesFor(bound: string): (4 | 6)[] {
  // A listener on :: accepts IPv4 too (Node listens dual-stack); IPv4 is what BMCs most often speak.
  return isIP(bound) === 4 ? [4] : [4, 6];
}

const FAMILY_NAME = { 4: 'IPv4', 6: 'IPv6' } as const;

export function chooseAddress(bound: string, network: HostNetwork): AddressChoice {
  if (isLoopbackHost(bound)) return { kind: 'loopback', address: bound };
  if (!isWildcard(bound)) return { kind: 'chosen', address: bound, iface: undefined, how: 'listen-address' };
  const families = familiesFor(bound);
  const addressesOf = (iface: string, family: 4 | 6): InterfaceAddress[] =>
    (network.interfaces[iface] ?? []).filter((a) => a.family === FAMILY_NAME[family] && routable(a));

  for (const family of families) {
    const routes = network.routes
      .filter((r): r is DefaultRoute => r.family === family)
      .sort((a, b) => a.metric - b.metric);
    for (const route of routes) {
      const first = addressesOf(route.iface, family)[0];
      if (first) return { kind: 'chosen', address: first.address, iface: route.iface, how: 'default-route' };
    }
  }

  const all: { iface: string; address: string }[] = [];
  for (const family of families)
    for (const iface of Object.keys(network.interfaces))
      for (const a of addressesOf(iface, family)) all.push({ iface, address: a.address });
  for (const family of families) {
    const ofFamily = all.filter((a) => isIP(a.address) === family);
    if (ofFamily.length === 1)
      return { kind: 'chosen', address: ofFamily[0]!.address, iface: ofFamily[0]!.iface, how: 'only-address' };
    if (ofFamily.length > 1) {
      const listed = ofFamily.map((a) => `${a.address} (${a.iface})`).join(', ');
      return {
        kind: 'none',
        problem: `there is no default route and this host has several addresses (${listed}), so which one machines reach it on cannot be told`,
      };
    }
  }
  return { kind: 'none', problem: 'this host has no address other than loopback and link-local ones' };
}
