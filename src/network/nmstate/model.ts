// The typed model of the nmstate subset bootsmith converts: what parse-document.ts produces
// and render-host.ts consumes. Plain data, no behaviour.
//
// Does: describe interfaces (ethernet, bond, vlan, linux-bridge), their IP settings, routes
// and DNS, with values already validated and in canonical text.
// Does not: hold host bindings (host-binding.ts) or keyfile text (render-*.ts).
import type { IpAddress, IpFamily, IpPrefix } from '../address.js';

export type InterfaceType = 'ethernet' | 'bond' | 'vlan' | 'linux-bridge';
/** nmstate interface states: `absent` removes, `down` keeps it configured but inactive. */
export type InterfaceState = 'up' | 'down' | 'absent';

export interface IpConfig {
  enabled: boolean;
  /** DHCPv4, or DHCPv6. */
  dhcp: boolean;
  /** IPv6 SLAAC (router advertisements). Always false for IPv4. */
  autoconf: boolean;
  /** Static addresses, canonical, with their prefix length. */
  addresses: IpPrefix[];
  /** nmstate auto-dns / auto-gateway / auto-routes (dynamic methods only); undefined = default (true). */
  autoDns?: boolean;
  autoGateway?: boolean;
  autoRoutes?: boolean;
  autoRouteTableId?: number;
}

export const BOND_MODES = [
  'balance-rr',
  'active-backup',
  'balance-xor',
  'broadcast',
  '802.3ad',
  'balance-tlb',
  'balance-alb',
] as const;
export type BondMode = (typeof BOND_MODES)[number];

export interface BondConfig {
  mode: BondMode;
  /** Kernel bond option name → value text, validated (see parse-bond.ts). */
  options: Map<string, string>;
  ports: string[];
}

export interface VlanConfig {
  id: number;
  baseIface: string;
}

export interface BridgePort {
  name: string;
  stpPriority?: number;
  stpPathCost?: number;
  stpHairpinMode?: boolean;
}

export interface BridgeConfig {
  stp: {
    enabled?: boolean;
    priority?: number;
    forwardDelay?: number;
    helloTime?: number;
    maxAge?: number;
  };
  macAgeingTime?: number;
  ports: BridgePort[];
}

export interface NetInterface {
  /** Position in the document's `interfaces` list (for error paths). */
  index: number;
  name: string;
  type: InterfaceType;
  state: InterfaceState;
  mtu?: number;
  /** `mac-address` as written in the YAML, upper case. */
  macAddress?: string;
  ipv4: IpConfig;
  ipv6: IpConfig;
  bond?: BondConfig;
  vlan?: VlanConfig;
  bridge?: BridgeConfig;
}

export interface Route {
  index: number;
  destination: IpPrefix;
  /** Absent for an on-link (direct) route. */
  nextHop?: IpAddress;
  /** The interface the route is written to: given, or the one whose subnet holds the next hop. */
  nextHopInterface: string;
  metric?: number;
  tableId?: number;
}

export interface DnsConfig {
  servers: IpAddress[];
  search: string[];
}

export interface NetworkDocument {
  interfaces: NetInterface[];
  routes: Route[];
  dns: DnsConfig;
}

/**
 * Whether a family's settings can carry DNS servers and search domains: NetworkManager refuses
 * ipvX.dns / dns-search with method disabled or link-local (IPv6 enabled with nothing else).
 */
export const carriesDns = (cfg: IpConfig): boolean =>
  cfg.enabled && (cfg.dhcp || cfg.autoconf || cfg.addresses.length > 0);

export const familyKey = (family: IpFamily): 'ipv4' | 'ipv6' => (family === 4 ? 'ipv4' : 'ipv6');
