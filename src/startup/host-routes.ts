// This host's default routes and interface addresses, as the kernel reports them: the IPv4
// table in /proc/net/route, the IPv6 table in /proc/net/ipv6_route, addresses from
// os.networkInterfaces(). Used once at start to find the address machines reach us on
// (./routable-address.ts chooses; this file only reads).
//
// Does: parse both route tables (default routes only: destination and prefix 0, up, not a
// reject route, not on `lo`) and read them; a missing or unreadable file is an empty table (not
// Linux, or a sandbox without /proc). Does NOT: shell out (`ip route`), resolve names, or choose.
// Next: ./routable-address.ts.
import { readFile } from 'node:fs/promises';
import os from 'node:os';

export interface DefaultRoute {
  iface: string;
  family: 4 | 6;
  /** Lower wins, as the kernel's route lookup prefers it. */
  metric: number;
}

export interface InterfaceAddress {
  address: string;
  family: 'IPv4' | 'IPv6';
  internal: boolean;
}

/** os.networkInterfaces()'s shape, narrowed to what the choice reads. */
export type Interfaces = Record<string, readonly InterfaceAddress[] | undefined>;

export interface HostNetwork {
  routes: DefaultRoute[];
  interfaces: Interfaces;
}

/** route flags (linux/route.h) */
const RTF_UP = 0x0001;
const RTF_REJECT = 0x0200;
/** The route tables are a few lines; a file larger than this is not one (bounded read). */
const MAX_ROUTE_TABLE_BYTES = 1024 * 1024;

/** Default routes of /proc/net/route: `Iface Destination Gateway Flags RefCnt Use Metric Mask …`, hex fields. */
export function parseIpv4Routes(text: string): DefaultRoute[] {
  const routes: DefaultRoute[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const [iface, destination, , flagsHex, , , metricText, mask] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const flags = Number.parseInt(flagsHex, 16);
    if (destination !== '00000000' || mask !== '00000000' || !usable(flags, iface)) continue;
    routes.push({ iface, family: 4, metric: Number(metricText) });
  }
  return routes;
}

/** Default routes of /proc/net/ipv6_route: `dest plen src splen nexthop metric refcnt use flags iface`, hex fields. */
export function parseIpv6Routes(text: string): DefaultRoute[] {
  const routes: DefaultRoute[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const [destination, prefix, , , , metricHex, , , flagsHex, iface] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    if (!/^0{32}$/.test(destination) || prefix !== '00') continue;
    if (!usable(Number.parseInt(flagsHex, 16), iface)) continue;
    routes.push({ iface, family: 6, metric: Number.parseInt(metricHex, 16) });
  }
  return routes;
}

function usable(flags: number, iface: string): boolean {
  return Number.isInteger(flags) && (flags & RTF_UP) !== 0 && (flags & RTF_REJECT) === 0 && iface !== 'lo';
}

async function readTable(file: string): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.length > MAX_ROUTE_TABLE_BYTES ? '' : text;
  } catch {
    return ''; // not Linux, or no /proc here: no default route known
  }
}

/** Reads this host's default routes and interface addresses. */
export async function readHostNetwork(): Promise<HostNetwork> {
  const [v4, v6] = await Promise.all([readTable('/proc/net/route'), readTable('/proc/net/ipv6_route')]);
  return {
    routes: [...parseIpv4Routes(v4), ...parseIpv6Routes(v6)],
    interfaces: os.networkInterfaces() as Interfaces,
  };
}
