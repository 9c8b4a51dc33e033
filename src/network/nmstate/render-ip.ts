// The [ipv4] / [ipv6] section of one connection (nm-settings-keyfile(5), nm-settings-nmcli(5)).
//
// Does: map nmstate's family settings to ipvX.method (disabled; auto for DHCPv4 or IPv6
// autoconf; dhcp for DHCPv6 alone; manual for static addresses only; link-local for IPv6
// enabled with nothing else), write `addressN=ADDRESS/PLEN` with the first plain default
// route as the address's gateway (`address1=ADDRESS/PLEN,GATEWAY`, the keyfile form of
// ipvX.gateway), every other route as `routeN=DEST/PLEN[,NEXT_HOP[,METRIC]]` with
// `routeN_options=table=ID` for a table id, the DNS servers and search domains it was given
// (`dns=a;b;`, `dns-search=x;y;`), and auto-dns/auto-gateway/auto-routes/auto-route-table-id
// as ignore-auto-dns, never-default, ignore-auto-routes and route-table.
// Does not: decide which connection gets which routes or DNS (render-host.ts).
import type { IpAddress, IpFamily } from '../address.js';
import type { KeyfileEntry, KeyfileSection } from './keyfile-text.js';
import { familyKey, type IpConfig, type Route } from './model.js';

/** nmstate and the kernel: table 254 is `main`, 0 means unspecified (main). */
const MAIN_TABLES = new Set([0, 254]);

export interface IpPlacement {
  routes: Route[];
  dnsServers: IpAddress[];
  dnsSearch: string[];
}

function method(cfg: IpConfig, family: IpFamily): string {
  if (!cfg.enabled) return 'disabled';
  if (family === 4) return cfg.dhcp ? 'auto' : 'manual';
  if (cfg.autoconf) return 'auto';
  if (cfg.dhcp) return 'dhcp';
  return cfg.addresses.length > 0 ? 'manual' : 'link-local';
}

const isDefault = (r: Route): boolean => r.destination.prefixLength === 0;

export function ipSection(cfg: IpConfig, family: IpFamily, place: IpPlacement): KeyfileSection {
  const m = method(cfg, family);
  const entries: KeyfileEntry[] = [['method', m]];
  const unspecified = family === 4 ? '0.0.0.0' : '::';
  const gateway =
    m === 'manual'
      ? place.routes.find(
          (r) =>
            isDefault(r) &&
            r.nextHop &&
            r.metric === undefined &&
            (r.tableId === undefined || MAIN_TABLES.has(r.tableId)),
        )
      : undefined;
  cfg.addresses.forEach((a, k) => {
    const gw = k === 0 && gateway?.nextHop ? `,${gateway.nextHop.text}` : '';
    entries.push([`address${k + 1}`, `${a.text}/${a.prefixLength}${gw}`]);
  });
  let n = 0;
  for (const r of place.routes) {
    if (r === gateway) continue;
    n++;
    const parts = [`${r.destination.text}/${r.destination.prefixLength}`];
    if (r.nextHop || r.metric !== undefined) parts.push(r.nextHop?.text ?? unspecified);
    if (r.metric !== undefined) parts.push(String(r.metric));
    entries.push([`route${n}`, parts.join(',')]);
    if (r.tableId !== undefined && r.tableId !== 0) entries.push([`route${n}_options`, `table=${r.tableId}`]);
  }
  if (place.dnsServers.length > 0) entries.push(['dns', `${place.dnsServers.map((s) => s.text).join(';')};`]);
  if (place.dnsSearch.length > 0) entries.push(['dns-search', `${place.dnsSearch.join(';')};`]);
  if (cfg.autoDns === false) entries.push(['ignore-auto-dns', 'true']);
  if (cfg.autoGateway === false) entries.push(['never-default', 'true']);
  if (cfg.autoRoutes === false) entries.push(['ignore-auto-routes', 'true']);
  if (cfg.autoRouteTableId !== undefined) entries.push(['route-table', String(cfg.autoRouteTableId)]);
  return { name: familyKey(family), entries };
}
