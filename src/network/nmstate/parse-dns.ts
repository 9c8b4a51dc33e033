// nmstate's `dns-resolver.config`: server (IPv4/IPv6 addresses) and search (domain names).
//
// Does: validate both lists into canonical addresses and names. Search entries are dotted
// names of letters, digits, `-` and `_` with RFC 1035 lengths, so nothing in them can
// separate keyfile list items (`;`) or lines.
// Does not: decide which connection carries them (render-host.ts).
import { parseIpAddress } from '../address.js';
import { yamlError } from './errors.js';
import { MAX_DNS_SEARCH, MAX_DNS_SERVERS } from './limits.js';
import type { DnsConfig } from './model.js';
import { item, list, mapping } from './reader.js';

const DOMAIN_RE =
  /^(?=.{1,253}\.?$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

export function parseDns(raw: unknown): DnsConfig {
  if (raw === undefined || raw === null) return { servers: [], search: [] };
  const m = mapping(raw, 'dns-resolver', ['config']);
  if (m.config === undefined || m.config === null) return { servers: [], search: [] };
  const cfg = mapping(m.config, 'dns-resolver.config', ['server', 'search']);
  const servers = list(cfg.server, 'dns-resolver.config.server', MAX_DNS_SERVERS).map((s, k) => {
    const ip = parseIpAddress(s);
    if (!ip) yamlError(item('dns-resolver.config.server', k), 'must be an IP address');
    return ip;
  });
  const search = list(cfg.search, 'dns-resolver.config.search', MAX_DNS_SEARCH).map((s, k) => {
    if (typeof s !== 'string' || !DOMAIN_RE.test(s))
      yamlError(item('dns-resolver.config.search', k), 'must be a domain name');
    return s;
  });
  return { servers, search };
}
