// The one place the CLI converts nmstate YAML into NetworkManager keyfiles, through the same
// in-process conversion the API applies to static_network_config (src/network/nmstate/).
// `--mac-map NAME=MAC` binds each interface name to its NIC, as mac_interface_map does.
// Does: read the YAML file, build the request-shaped entry, convert. Does NOT: run nmstatectl.
import type { Readable } from 'node:stream';

import { convertHost, NetworkConfigError } from '../../network/nmstate/convert.js';
import type { NetworkKeyfile } from '../../initrd/embed-archive.js';
import { UsageError } from '../args.js';
import { readInput } from '../input/read-input.js';
import { CliError } from '../verb.js';

/** `NAME=MAC` → the API's mac_interface_map entry. */
function parseMacMap(spec: string, verb: string): { macAddress: string; logicalNicName: string } {
  const eq = spec.indexOf('=');
  if (eq <= 0)
    throw new UsageError(`${verb}: --mac-map ${JSON.stringify(spec)} is not NAME=MAC`, `usage: ${verb} --help`);
  return { logicalNicName: spec.slice(0, eq), macAddress: spec.slice(eq + 1) };
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
  const host = { networkYaml: bytes.toString('utf8'), macInterfaceMap: macMaps.map((m) => parseMacMap(m, verb)) };
  try {
    return convertHost(host, 0).map((k) => ({ name: k.name, content: Buffer.from(k.contents, 'utf8') }));
  } catch (err) {
    if (err instanceof NetworkConfigError) throw new CliError(name, `${err.path} ${err.reason}`);
    throw err;
  }
}
