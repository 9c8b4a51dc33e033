// An interface's `ipv4` / `ipv6` section (nmstate schema: enabled, dhcp, autoconf, address,
// auto-dns, auto-gateway, auto-routes, auto-route-table-id).
//
// Does: validate the section into an IpConfig with canonical addresses; a missing section
// means the family is disabled (nmstate's default for a new interface); a present section
// without `enabled` is enabled. IPv4 enabled without DHCP needs an address (NetworkManager
// refuses method=manual without one); IPv6 enabled without any is link-local only.
// Does not: decide which interface gets routes or DNS (render-host.ts) or write keyfile text.
import { isPrefixLength, parseIpAddress, type IpFamily } from '../address.js';
import { yamlError } from './errors.js';
import { MAX_ADDRESSES, MAX_U32 } from './limits.js';
import type { IpConfig } from './model.js';
import { child, item, list, mapping, optionalBool, optionalInteger } from './reader.js';

const COMMON_KEYS = ['enabled', 'dhcp', 'address', 'auto-dns', 'auto-gateway', 'auto-routes', 'auto-route-table-id'];
const KEYS: Record<IpFamily, readonly string[]> = { 4: COMMON_KEYS, 6: [...COMMON_KEYS, 'autoconf'] };

export const DISABLED: IpConfig = { enabled: false, dhcp: false, autoconf: false, addresses: [] };

export function parseIpConfig(raw: unknown, family: IpFamily, path: string): IpConfig {
  if (raw === undefined || raw === null) return DISABLED;
  const m = mapping(raw, path, KEYS[family]);
  const enabled = optionalBool(m.enabled, child(path, 'enabled')) ?? true;
  if (!enabled) {
    const extra = Object.keys(m).find((k) => k !== 'enabled' && m[k] !== false && m[k] !== undefined && m[k] !== null);
    if (extra !== undefined && !(extra === 'address' && Array.isArray(m.address) && m.address.length === 0)) {
      yamlError(child(path, extra), 'cannot be set when the family is disabled (enabled: false)');
    }
    return DISABLED;
  }
  const dhcp = optionalBool(m.dhcp, child(path, 'dhcp')) ?? false;
  const autoconf = family === 6 ? (optionalBool(m.autoconf, child(path, 'autoconf')) ?? false) : false;
  const addresses = list(m.address, child(path, 'address'), MAX_ADDRESSES).map((a, k) => {
    const at = item(child(path, 'address'), k);
    const am = mapping(a, at, ['ip', 'prefix-length']);
    const ip = parseIpAddress(am.ip);
    if (!ip || ip.family !== family) yamlError(child(at, 'ip'), `must be an IPv${family} address`);
    const plen = typeof am['prefix-length'] === 'string' ? Number(am['prefix-length']) : am['prefix-length'];
    if (
      !isPrefixLength(family, plen) ||
      (typeof am['prefix-length'] === 'string' && !/^\d{1,3}$/.test(am['prefix-length']))
    ) {
      yamlError(child(at, 'prefix-length'), `must be an integer from 0 to ${family === 4 ? 32 : 128}`);
    }
    return { ...ip, prefixLength: plen };
  });
  const seen = new Set<string>();
  addresses.forEach((a, k) => {
    if (seen.has(a.text)) yamlError(item(child(path, 'address'), k), `repeats the address ${a.text}`);
    seen.add(a.text);
  });
  const dynamic = dhcp || autoconf;
  if (family === 4 && !dynamic && addresses.length === 0) {
    yamlError(path, 'is enabled but has neither dhcp: true nor an address');
  }
  const cfg: IpConfig = { enabled: true, dhcp, autoconf, addresses };
  for (const [key, field] of [
    ['auto-dns', 'autoDns'],
    ['auto-gateway', 'autoGateway'],
    ['auto-routes', 'autoRoutes'],
  ] as const) {
    const v = optionalBool(m[key], child(path, key));
    if (v === undefined) continue;
    if (!dynamic) yamlError(child(path, key), 'applies only with dhcp or autoconf');
    cfg[field] = v;
  }
  const table = optionalInteger(m['auto-route-table-id'], child(path, 'auto-route-table-id'), 0, MAX_U32);
  if (table !== undefined) {
    if (!dynamic) yamlError(child(path, 'auto-route-table-id'), 'applies only with dhcp or autoconf');
    cfg.autoRouteTableId = table;
  }
  return cfg;
}
