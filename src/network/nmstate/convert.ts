// The static network conversion's entry point: a list of hosts (nmstate YAML + MAC map, the
// upstream static_network_config shape) → NetworkManager keyfiles, in-process, no binary.
//
// Does: convert each host (parse-document.ts, host-binding.ts, render-host.ts), refuse a MAC
// that appears for two hosts, and return every host's keyfiles sorted by file name, so the
// same input always gives the same bytes. Errors are NetworkConfigError naming the host (its
// position and first MAC) and the field path. Used by the core (src/core/infraenv/
// static-network.ts) and meant for the offline CLI; imports nothing from src/core.
// Does not: store, pack (cpio/tar) or log anything.
import { parseMacAddress } from '../address.js';
import { NetworkConfigError } from './errors.js';
import { checkBinding, parseMacMap, type MacMapEntry } from './host-binding.js';
import { MAX_HOSTS } from './limits.js';
import { parseDocument } from './parse-document.js';
import { renderHost, type Keyfile } from './render-host.js';

export type { Keyfile } from './render-host.js';
export { NetworkConfigError } from './errors.js';

export interface HostNetworkInput {
  networkYaml: string;
  macInterfaceMap: readonly MacMapEntry[];
}

/** One host's keyfiles; errors name the host as `static_network_config[index]`. */
export function convertHost(host: HostNetworkInput, index: number): Keyfile[] {
  const first = host.macInterfaceMap[0]?.macAddress;
  const ref = { index, ...(typeof first === 'string' && parseMacAddress(first) ? { mac: first } : {}) };
  try {
    const binding = parseMacMap(host.macInterfaceMap);
    const doc = parseDocument(host.networkYaml);
    checkBinding(doc, binding);
    return renderHost(doc, binding);
  } catch (err) {
    if (err instanceof NetworkConfigError && err.host === undefined) throw err.forHost(ref);
    throw err;
  }
}

export function convertHosts(hosts: readonly HostNetworkInput[]): Keyfile[] {
  if (hosts.length > MAX_HOSTS) {
    throw new NetworkConfigError(
      'static_network_config',
      `has ${hosts.length} hosts; at most ${MAX_HOSTS} are accepted`,
    );
  }
  const owner = new Map<string, number>();
  const files: Keyfile[] = [];
  hosts.forEach((host, index) => {
    files.push(...convertHost(host, index));
    host.macInterfaceMap.forEach((e, j) => {
      const mac = parseMacAddress(e.macAddress)!;
      const other = owner.get(mac);
      if (other !== undefined) {
        throw new NetworkConfigError(
          `mac_interface_map[${j}].mac_address`,
          `${mac} is also a MAC of static_network_config[${other}]`,
          {
            index,
            mac: String(host.macInterfaceMap[0]!.macAddress),
          },
        );
      }
      owner.set(mac, index);
    });
  });
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
