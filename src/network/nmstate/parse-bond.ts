// A bond's `link-aggregation` section (nmstate: mode, options, port; `slaves` is nmstate's
// older spelling of `port`).
//
// Does: check the mode (the seven Linux bonding modes by name), each option against the
// kernel's bonding option names and value syntax (Documentation/networking/bonding.rst), and
// the modes an option applies to where NetworkManager's bond setting refuses others
// (nm-settings-nmcli(5), bond.options: e.g. lacp_rate only for 802.3ad, primary only for
// active-backup, balance-tlb and balance-alb; ARP monitoring not for 802.3ad/tlb/alb), and the
// rules between options NetworkManager's bond verification applies (libnm-core
// nm-setting-bond.c: updelay/downdelay/peer_notif_delay need miimon, arp_interval and
// arp_ip_target go together, num_grat_arp = num_unsol_na). Values are returned as the text the
// keyfile's [bond] section takes.
// Does not: check that ports exist (parse-document.ts) or render the section.
import { parseIpAddress, parseMacAddress } from '../address.js';
import { yamlError } from './errors.js';
import { MAX_PORTS } from './limits.js';
import { BOND_MODES, type BondConfig, type BondMode } from './model.js';
import { child, integer, item, list, mapping, oneOf } from './reader.js';

/** int32 upper bound the kernel's bonding options take for times and counts. */
const INT_MAX = 0x7fff_ffff;
/** The kernel accepts at most 16 ARP targets (BOND_MAX_ARP_TARGETS). */
const MAX_ARP_TARGETS = 16;

type OptionKind =
  | { kind: 'int'; min: number; max: number }
  | { kind: 'word'; words: readonly string[] }
  | { kind: 'port' }
  | { kind: 'mac' }
  | { kind: 'ipv4-list' };

interface OptionRule {
  value: OptionKind;
  /** Modes the option applies to; undefined = all. */
  modes?: readonly BondMode[];
}

const int = (max = INT_MAX, min = 0): OptionKind => ({ kind: 'int', min, max });
const words = (...w: string[]): OptionKind => ({ kind: 'word', words: w });
const bool01 = words('0', '1');

/** ARP monitoring is not for 802.3ad, balance-tlb or balance-alb (NetworkManager drops or refuses it there). */
const ARP_MODES: readonly BondMode[] = ['balance-rr', 'active-backup', 'balance-xor', 'broadcast'];

const OPTIONS: Record<string, OptionRule> = {
  miimon: { value: int() },
  updelay: { value: int() },
  downdelay: { value: int() },
  peer_notif_delay: { value: int() },
  use_carrier: { value: bool01 },
  arp_interval: { value: int(), modes: ARP_MODES },
  arp_ip_target: { value: { kind: 'ipv4-list' }, modes: ARP_MODES },
  arp_validate: {
    value: words('none', 'active', 'backup', 'all', 'filter', 'filter_active', 'filter_backup'),
    modes: ARP_MODES,
  },
  arp_all_targets: { value: words('any', 'all') },
  lacp_rate: { value: words('slow', 'fast', '0', '1'), modes: ['802.3ad'] },
  ad_select: { value: words('stable', 'bandwidth', 'count', '0', '1', '2'), modes: ['802.3ad'] },
  ad_actor_sys_prio: { value: int(65535, 1), modes: ['802.3ad'] },
  ad_user_port_key: { value: int(1023), modes: ['802.3ad'] },
  ad_actor_system: { value: { kind: 'mac' }, modes: ['802.3ad'] },
  min_links: { value: int() },
  xmit_hash_policy: {
    value: words('layer2', 'layer3+4', 'layer2+3', 'encap2+3', 'encap3+4', 'vlan+srcmac'),
    modes: ['balance-xor', '802.3ad', 'balance-tlb'],
  },
  primary: { value: { kind: 'port' }, modes: ['active-backup', 'balance-tlb', 'balance-alb'] },
  primary_reselect: {
    value: words('always', 'better', 'failure', '0', '1', '2'),
    modes: ['active-backup', 'balance-tlb', 'balance-alb'],
  },
  fail_over_mac: { value: words('none', 'active', 'follow', '0', '1', '2'), modes: ['active-backup'] },
  num_grat_arp: { value: int(255) },
  num_unsol_na: { value: int(255) },
  all_slaves_active: { value: bool01 },
  resend_igmp: { value: int(255) },
  lp_interval: { value: int(INT_MAX, 1) },
  packets_per_slave: { value: int(65535), modes: ['balance-rr'] },
  tlb_dynamic_lb: { value: bool01, modes: ['balance-tlb', 'balance-alb'] },
};

export const BOND_OPTION_NAMES = Object.keys(OPTIONS).sort();

function optionText(name: string, rule: OptionRule, raw: unknown, path: string): string {
  const v = rule.value;
  switch (v.kind) {
    case 'int':
      return String(integer(raw, path, v.min, v.max));
    case 'word': {
      // YAML may give 0/1 and true/false as non-strings; nmstate writes these options as words.
      const text = typeof raw === 'number' ? String(raw) : typeof raw === 'boolean' ? (raw ? '1' : '0') : raw;
      return oneOf(text, path, v.words);
    }
    case 'port':
      if (typeof raw !== 'string' || raw === '') yamlError(path, 'must name a port of the bond');
      return raw;
    case 'mac': {
      const mac = parseMacAddress(raw);
      if (!mac) yamlError(path, 'must be a MAC address');
      return mac;
    }
    case 'ipv4-list': {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : undefined;
      if (!items || items.length === 0 || items.length > MAX_ARP_TARGETS) {
        yamlError(path, `must be 1 to ${MAX_ARP_TARGETS} IPv4 addresses`);
      }
      return items
        .map((t, k) => {
          const ip = parseIpAddress(typeof t === 'string' ? t.trim() : t);
          if (!ip || ip.family !== 4) yamlError(item(path, k), `${name} entries must be IPv4 addresses`);
          return ip.text;
        })
        .join(',');
    }
  }
}

export function parseBond(raw: unknown, path: string): BondConfig {
  const m = mapping(raw, path, ['mode', 'options', 'port', 'slaves']);
  const mode = oneOf(m.mode, child(path, 'mode'), BOND_MODES);
  if (m.port !== undefined && m.slaves !== undefined) yamlError(child(path, 'slaves'), 'cannot be given with port');
  const portKey = m.slaves !== undefined ? 'slaves' : 'port';
  const ports = list(m[portKey], child(path, portKey), MAX_PORTS).map((p, k) => {
    if (typeof p !== 'string' || p === '') yamlError(item(child(path, portKey), k), 'must be an interface name');
    return p;
  });
  const options = new Map<string, string>();
  if (m.options !== undefined && m.options !== null) {
    const om = mapping(m.options, child(path, 'options'), BOND_OPTION_NAMES);
    for (const name of Object.keys(om).sort()) {
      const rule = OPTIONS[name]!;
      const at = child(child(path, 'options'), name);
      if (rule.modes && !rule.modes.includes(mode)) {
        yamlError(at, `applies only to bond modes ${rule.modes.join(', ')} (this bond is ${mode})`);
      }
      const text = optionText(name, rule, om[name], at);
      if (name === 'primary' && !ports.includes(text)) yamlError(at, `names ${text}, which is not a port of this bond`);
      options.set(name, text);
    }
  }
  const opt = (name: string) => Number(options.get(name) ?? '0');
  const at = (name: string) => child(child(path, 'options'), name);
  const miimon = opt('miimon');
  for (const name of ['updelay', 'downdelay', 'peer_notif_delay']) {
    if (opt(name) > 0 && miimon === 0) yamlError(at(name), 'needs miimon greater than 0');
  }
  if (opt('peer_notif_delay') % (miimon || 1) !== 0) yamlError(at('peer_notif_delay'), 'must be a multiple of miimon');
  if (options.has('num_grat_arp') && options.has('num_unsol_na') && opt('num_grat_arp') !== opt('num_unsol_na')) {
    yamlError(at('num_unsol_na'), 'must equal num_grat_arp (the kernel keeps one value for both)');
  }
  const arpInterval = opt('arp_interval');
  if (arpInterval > 0 && !options.has('arp_ip_target')) {
    yamlError(child(child(path, 'options'), 'arp_interval'), 'needs arp_ip_target');
  }
  if (arpInterval === 0 && options.has('arp_ip_target')) {
    yamlError(child(child(path, 'options'), 'arp_ip_target'), 'needs arp_interval greater than 0');
  }
  if (arpInterval > 0 && Number(options.get('miimon') ?? '0') > 0) {
    yamlError(child(child(path, 'options'), 'arp_interval'), 'cannot be combined with miimon (the kernel uses one)');
  }
  return { mode, options, ports };
}
