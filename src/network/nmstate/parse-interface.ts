// One entry of nmstate's `interfaces` list: name, type, state, mtu, mac-address, ipv4, ipv6,
// and the section of its type (link-aggregation for bond, vlan for vlan, bridge for
// linux-bridge).
//
// Does: validate the entry into a NetInterface. Names are the kernel's (1–15 bytes) restricted
// to letters, digits and `_ . @ + -`: a name ends up as a keyfile value and file name, and
// GKeyFile would read `\` as an escape. A key of another type (`vlan:` on an ethernet) or any
// key outside this subset (`team`, `ethernet`, `sr-iov`, …) is refused with its path.
// `state: absent` entries carry nothing but name, type and state.
// Does not: check references between interfaces (parse-document.ts).
import { MAX_INTERFACE_NAME_BYTES, parseMacAddress } from '../address.js';
import { yamlError } from './errors.js';
import { MTU_MAX, MTU_MIN, VLAN_ID_MAX } from './limits.js';
import type { InterfaceState, InterfaceType, NetInterface } from './model.js';
import { parseBond } from './parse-bond.js';
import { parseBridge } from './parse-bridge.js';
import { DISABLED, parseIpConfig } from './parse-ip.js';
import { child, integer, mapping, oneOf, optionalInteger } from './reader.js';

const TYPES: readonly InterfaceType[] = ['ethernet', 'bond', 'vlan', 'linux-bridge'];
const STATES: readonly InterfaceState[] = ['up', 'down', 'absent'];
/** The section each type carries, under nmstate's key for it. */
const TYPE_SECTION: Record<InterfaceType, string | undefined> = {
  ethernet: undefined,
  bond: 'link-aggregation',
  vlan: 'vlan',
  'linux-bridge': 'bridge',
};
const COMMON_KEYS = ['name', 'type', 'state', 'mtu', 'mac-address', 'ipv4', 'ipv6'];
const ALL_KEYS = [...COMMON_KEYS, 'link-aggregation', 'vlan', 'bridge'];
const NAME_RE = /^[A-Za-z0-9_.@+-]+$/;

/** An interface name this conversion accepts (see the header). */
export function isSafeInterfaceName(v: unknown): v is string {
  return (
    typeof v === 'string' &&
    NAME_RE.test(v) &&
    v !== '.' &&
    v !== '..' &&
    Buffer.byteLength(v, 'utf8') <= MAX_INTERFACE_NAME_BYTES
  );
}

export function parseInterface(raw: unknown, index: number): NetInterface {
  const path = `interfaces[${index}]`;
  const m = mapping(raw, path, ALL_KEYS);
  if (!isSafeInterfaceName(m.name)) {
    yamlError(
      child(path, 'name'),
      `is required: an interface name (1-${MAX_INTERFACE_NAME_BYTES} bytes of letters, digits, "_", ".", "@", "+", "-")`,
    );
  }
  const name = m.name;
  if (m.type !== undefined && typeof m.type === 'string' && !TYPES.includes(m.type as InterfaceType)) {
    yamlError(child(path, 'type'), `${m.type} is not supported (supported: ${TYPES.join(', ')})`);
  }
  const type = m.type === undefined ? 'ethernet' : oneOf(m.type, child(path, 'type'), TYPES);
  const state = m.state === undefined ? 'up' : oneOf(m.state, child(path, 'state'), STATES);
  const section = TYPE_SECTION[type];
  for (const key of ['link-aggregation', 'vlan', 'bridge']) {
    if (m[key] !== undefined && key !== section) yamlError(child(path, key), `is not valid for type ${type}`);
  }
  if (state === 'absent') {
    const extra = Object.keys(m).find((k) => !['name', 'type', 'state'].includes(k));
    if (extra !== undefined) yamlError(child(path, extra), 'cannot be given with state: absent');
    return { index, name, type, state, ipv4: DISABLED, ipv6: DISABLED };
  }
  const iface: NetInterface = {
    index,
    name,
    type,
    state,
    ipv4: parseIpConfig(m.ipv4, 4, child(path, 'ipv4')),
    ipv6: parseIpConfig(m.ipv6, 6, child(path, 'ipv6')),
  };
  const mtu = optionalInteger(m.mtu, child(path, 'mtu'), MTU_MIN, MTU_MAX);
  if (mtu !== undefined) iface.mtu = mtu;
  if (m['mac-address'] !== undefined) {
    const mac = parseMacAddress(m['mac-address']);
    if (!mac) yamlError(child(path, 'mac-address'), 'is not a MAC address');
    iface.macAddress = mac;
  }
  if (section !== undefined && (m[section] === undefined || m[section] === null)) {
    yamlError(child(path, section), `is required for type ${type}`);
  }
  if (type === 'bond') iface.bond = parseBond(m['link-aggregation'], child(path, 'link-aggregation'));
  if (type === 'linux-bridge') iface.bridge = parseBridge(m.bridge, child(path, 'bridge'));
  if (type === 'vlan') {
    const vp = child(path, 'vlan');
    const vm = mapping(m.vlan, vp, ['id', 'base-iface']);
    const id = integer(vm.id, child(vp, 'id'), 0, VLAN_ID_MAX);
    if (!isSafeInterfaceName(vm['base-iface'])) yamlError(child(vp, 'base-iface'), 'must be an interface name');
    iface.vlan = { id, baseIface: vm['base-iface'] };
  }
  return iface;
}
