// The one place the CLI converts nmstate YAML into NetworkManager keyfiles. Today it goes through
// the core's static-network conversion (src/core/infraenv/static-network.ts, the same rules the
// API applies to static_network_config); when the nmstate module lands, only this file changes.
// `--mac-map NAME=MAC` binds each interface name to its NIC, as mac_interface_map does.
// Does: read the YAML file, build the request-shaped entry, convert. Does NOT: run nmstatectl.
import type { Readable } from 'node:stream';

import { BadRequestError } from '../../errors.js';
import { generateKeyfiles, validateStaticNetworkConfig } from '../../core/infraenv/static-network.js';
import type { NetworkKeyfile } from '../../initrd/embed-archive.js';
import { UsageError } from '../args.js';
import { readInput } from '../iso/read-input.js';
import { CliError } from '../verb.js';

/** `NAME=MAC` → the API's mac_interface_map entry. */
function parseMacMap(spec: string, verb: string): { mac_address: string; logical_nic_name: string } {
  const eq = spec.indexOf('=');
  if (eq <= 0)
    throw new UsageError(`${verb}: --mac-map ${JSON.stringify(spec)} is not NAME=MAC`, `usage: ${verb} --help`);
  return { logical_nic_name: spec.slice(0, eq), mac_address: spec.slice(eq + 1) };
}

export async function nmstateKeyfiles(
  file: string,
  macMaps: readonly string[],
  stdin: Readable,
  verb: string,
): Promise<NetworkKeyfile[]> {
  if (macMaps.length === 0)
    throw new UsageError(`${verb}: --nmstate needs at least one --mac-map NAME=MAC`, `usage: ${verb} --help`);
  const { name, bytes } = await readInput(file, stdin);
  const entry = { network_yaml: bytes.toString('utf8'), mac_interface_map: macMaps.map((m) => parseMacMap(m, verb)) };
  try {
    return generateKeyfiles(validateStaticNetworkConfig([entry])).map((k) => ({
      name: k.name,
      content: Buffer.from(k.contents, 'utf8'),
    }));
  } catch (err) {
    if (err instanceof BadRequestError)
      throw new CliError(name, err.message.replace(/^static_network_config\[0\] /, ''));
    throw err;
  }
}
