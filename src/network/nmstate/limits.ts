// Bounds on one static network configuration, so a hostile document costs little to refuse.
//
// Does: name every size limit the nmstate conversion enforces, each with its reason.
// Does not: enforce them (the parsers do) or limit anything outside static networking.

/** Hosts in one InfraEnv's static_network_config: far above any rack, small enough to convert in milliseconds. */
export const MAX_HOSTS = 1_000;
/** Bytes of one host's network_yaml: the largest real configurations are a few KiB. */
export const MAX_NETWORK_YAML_BYTES = 64 * 1024;
/** YAML aliases in one document: stops "billion laughs" expansion; nmstate files need none. */
export const MAX_YAML_ALIASES = 16;
/** Interfaces in one document: a host with 32 NICs, bonds and VLANs on each stays well below. */
export const MAX_INTERFACES = 256;
/** Entries in one host's mac_interface_map. */
export const MAX_MAC_MAP_ENTRIES = 128;
/** Routes in one document. */
export const MAX_ROUTES = 1_024;
/** Static addresses per interface and family. */
export const MAX_ADDRESSES = 64;
/** DNS servers and search domains (resolv.conf itself uses 3 servers and 6 domains). */
export const MAX_DNS_SERVERS = 16;
export const MAX_DNS_SEARCH = 32;
/** Ports of one bond or bridge. */
export const MAX_PORTS = 64;
/** Largest MTU Linux accepts on any link (IP_MAX_MTU); the smallest IPv4 needs is 68 (RFC 791). */
export const MTU_MIN = 68;
export const MTU_MAX = 65_535;
/** Route metrics and table ids are u32 in NetworkManager and the kernel. */
export const MAX_U32 = 0xffff_ffff;
/** 802.1Q: 12-bit id, 4095 reserved; NetworkManager's vlan.id accepts 0–4094. */
export const VLAN_ID_MAX = 4094;
