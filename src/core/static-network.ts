// The core's adapter to the nmstate conversion (src/network/nmstate/): an InfraEnv's
// static_network_config (upstream shape: a list of {network_yaml, mac_interface_map}, one
// per host) checked for its API shape, then converted to NetworkManager keyfiles.
//
// Does: refuse a body that is not that shape; run the conversion at create/update so any
// error is a 400 naming the host and the field path (NetworkConfigError is a
// BadRequestError), before anything is stored; hand the keyfiles to the discovery Ignition,
// the minimal initrd and the static-network-config download.
// Does not: parse nmstate or know keyfile semantics (src/network/nmstate/ does).
import { BadRequestError } from '../errors.js';
import { convertHosts, type HostNetworkInput, type Keyfile } from '../network/nmstate/convert.js';
import type { StaticNetworkConfigEntry } from './model.js';

export type KeyfileOut = Keyfile;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const toInput = (e: StaticNetworkConfigEntry): HostNetworkInput => ({
  networkYaml: e.network_yaml,
  macInterfaceMap: e.mac_interface_map.map((m) => ({ macAddress: m.mac_address, logicalNicName: m.logical_nic_name })),
});

export function validateStaticNetworkConfig(raw: unknown): StaticNetworkConfigEntry[] {
  if (!Array.isArray(raw)) throw new BadRequestError('static_network_config must be a list');
  const entries = raw.map((e, i): StaticNetworkConfigEntry => {
    if (!isObj(e)) throw new BadRequestError(`static_network_config[${i}] must be an object`);
    for (const key of Object.keys(e)) {
      if (key !== 'network_yaml' && key !== 'mac_interface_map') {
        throw new BadRequestError(`static_network_config[${i}].${key} is not a field of a static network config`);
      }
    }
    if (typeof e.network_yaml !== 'string' || e.network_yaml.trim() === '') {
      throw new BadRequestError(`static_network_config[${i}].network_yaml is required`);
    }
    if (!Array.isArray(e.mac_interface_map) || e.mac_interface_map.length === 0) {
      throw new BadRequestError(`static_network_config[${i}].mac_interface_map is required`);
    }
    const map = e.mac_interface_map.map((m: unknown, j: number) => {
      if (!isObj(m) || typeof m.mac_address !== 'string') {
        throw new BadRequestError(
          `static_network_config[${i}].mac_interface_map[${j}].mac_address is not a MAC address`,
        );
      }
      if (m.logical_nic_name !== undefined && m.logical_nic_name !== null && typeof m.logical_nic_name !== 'string') {
        throw new BadRequestError(
          `static_network_config[${i}].mac_interface_map[${j}].logical_nic_name must be an interface name`,
        );
      }
      return {
        mac_address: m.mac_address,
        ...(m.logical_nic_name ? { logical_nic_name: m.logical_nic_name } : {}),
      };
    });
    return { network_yaml: e.network_yaml, mac_interface_map: map };
  });
  convertHosts(entries.map(toInput)); // validates everything; the result is rebuilt when needed
  return entries;
}

export function generateKeyfiles(config: readonly StaticNetworkConfigEntry[]): KeyfileOut[] {
  return convertHosts(config.map(toInput));
}
