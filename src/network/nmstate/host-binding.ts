// Binds one host's document to its NICs: mac_interface_map (logical_nic_name → mac_address).
//
// Does: validate the map (MAC-48 addresses, interface names, no MAC or name twice) and
// require an entry for every ethernet interface the document configures (up or down): an
// ethernet keyfile is matched to its NIC by that MAC alone, never by the logical name, which
// the host may not use. A `mac-address` written on an ethernet interface must agree with the
// map. Bonds, VLANs and bridges have no MAC of their own to match, so the map must not
// name them (render-host.ts binds them through their ports and bases).
// Does not: check MACs across hosts (convert.ts) or render keyfiles.
import { parseMacAddress } from '../address.js';
import { NetworkConfigError, yamlError } from './errors.js';
import { MAX_MAC_MAP_ENTRIES } from './limits.js';
import type { NetworkDocument } from './model.js';
import { isSafeInterfaceName } from './parse-interface.js';

export interface MacMapEntry {
  macAddress: unknown;
  logicalNicName?: unknown;
}

export interface HostBinding {
  /** The host's MACs (upper case), in map order. */
  macs: string[];
  /** Ethernet interface name → the MAC it is bound to. */
  macOf: Map<string, string>;
}

function mapError(path: string, reason: string): never {
  throw new NetworkConfigError(`mac_interface_map${path}`, reason);
}

export function parseMacMap(raw: readonly MacMapEntry[]): HostBinding {
  if (raw.length === 0) mapError('', 'is required: at least one entry');
  if (raw.length > MAX_MAC_MAP_ENTRIES)
    mapError('', `has ${raw.length} entries; at most ${MAX_MAC_MAP_ENTRIES} are accepted`);
  const macs: string[] = [];
  const macOf = new Map<string, string>();
  raw.forEach((e, j) => {
    const mac = parseMacAddress(e.macAddress);
    if (!mac) mapError(`[${j}].mac_address`, 'is not a MAC address');
    if (macs.includes(mac)) mapError(`[${j}].mac_address`, `repeats ${mac}`);
    macs.push(mac);
    const name = e.logicalNicName;
    if (name === undefined || name === null || name === '') return;
    if (!isSafeInterfaceName(name)) mapError(`[${j}].logical_nic_name`, 'must be an interface name');
    if (macOf.has(name)) mapError(`[${j}].logical_nic_name`, `repeats ${name}`);
    macOf.set(name, mac);
  });
  return { macs, macOf };
}

/** Checks the map against the document's interfaces. */
export function checkBinding(doc: NetworkDocument, binding: HostBinding): void {
  const names = new Map(doc.interfaces.map((i) => [i.name, i]));
  for (const [name, iface] of names) {
    if (iface.type !== 'ethernet' || iface.state === 'absent') continue;
    const mac = binding.macOf.get(name);
    if (mac === undefined) {
      mapError('', `has no entry for interface ${name} (interfaces[${iface.index}]): its keyfile would match no NIC`);
    }
    if (iface.macAddress !== undefined && iface.macAddress !== mac) {
      yamlError(
        `interfaces[${iface.index}].mac-address`,
        `is ${iface.macAddress}, but mac_interface_map binds ${name} to ${mac}`,
      );
    }
  }
  for (const [name] of binding.macOf) {
    const iface = names.get(name);
    if (iface && iface.type !== 'ethernet') {
      mapError(
        '',
        `names ${name}, a ${iface.type}: only ethernet interfaces have a MAC to match (a ${iface.type} is bound through its ports or base)`,
      );
    }
  }
}
