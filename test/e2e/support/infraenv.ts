// InfraEnvs as a user creates them for these tests (SSH key, kernel arguments, static
// networking for the guest's NIC), and what the service promises about them.
import { API, type BootsmithService, OPENSHIFT_VERSION } from './service.js';

/** The guest NIC's MAC (qemu's locally administered prefix); static networking is keyed on it. */
export const NIC_MAC = '52:54:00:e2:e0:01';
export const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl e2e@bootsmith';
const PULL_SECRET = JSON.stringify({
  auths: { 'quay.io': { auth: Buffer.from('e2e:secret').toString('base64'), email: 'e2e@example.test' } },
});

const NETWORK_YAML = `interfaces:
- name: eth0
  type: ethernet
  state: up
  ipv4:
    enabled: true
    dhcp: false
    address:
    - ip: 10.0.2.15
      prefix-length: 24
dns-resolver:
  config:
    server:
    - 10.0.2.3
routes:
  config:
  - destination: 0.0.0.0/0
    next-hop-address: 10.0.2.2
    next-hop-interface: eth0
`;

export interface E2eInfraEnv {
  id: string;
  downloadUrl: string;
  kernelArguments: string[];
  /** GET downloads/files?file_name=discovery.ign: the Ignition the guest must receive, byte for byte. */
  discoveryIgnition: Buffer;
}

export async function createInfraEnv(
  service: BootsmithService,
  options: {
    name: string;
    kernelArguments: string[];
    imageType?: 'full-iso' | 'minimal-iso';
    ignitionConfigOverride?: string;
    /** Replaces the default single-NIC static_network_config (upstream shape). */
    staticNetworkConfig?: unknown[];
    /** Default x86_64. */
    cpuArchitecture?: string;
  },
): Promise<E2eInfraEnv> {
  const body = {
    name: options.name,
    pull_secret: PULL_SECRET,
    ssh_authorized_key: SSH_KEY,
    openshift_version: OPENSHIFT_VERSION,
    cpu_architecture: options.cpuArchitecture ?? 'x86_64',
    image_type: options.imageType ?? 'full-iso',
    kernel_arguments: options.kernelArguments.map((value) => ({ operation: 'append', value })),
    static_network_config: options.staticNetworkConfig ?? [
      { network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: NIC_MAC, logical_nic_name: 'eth0' }] },
    ],
    ...(options.ignitionConfigOverride === undefined
      ? {}
      : { ignition_config_override: options.ignitionConfigOverride }),
  };
  const created = JSON.parse(await service.expectCall('POST', `${API}/infra-envs`, 201, body)) as {
    id: string;
    download_url: string;
  };
  const ignition = await service.call('GET', `${API}/infra-envs/${created.id}/downloads/files?file_name=discovery.ign`);
  if (ignition.status !== 200) throw new Error(`discovery.ign: ${ignition.status} ${await ignition.text()}`);
  return {
    id: created.id,
    downloadUrl: created.download_url,
    kernelArguments: options.kernelArguments,
    discoveryIgnition: Buffer.from(await ignition.arrayBuffer()),
  };
}

/** A file an Ignition config writes, decoded from its data URL. */
export function ignitionFile(ignition: Buffer, filePath: string): string | undefined {
  const config = JSON.parse(ignition.toString('utf8')) as {
    storage?: { files?: { path: string; contents?: { source?: string } }[] };
  };
  const source = config.storage?.files?.find((f) => f.path === filePath)?.contents?.source;
  if (source === undefined) return undefined;
  const m = /^data:[^,]*?(;base64)?,(.*)$/s.exec(source);
  if (!m) throw new Error(`${filePath}: not a data URL`);
  return m[1] ? Buffer.from(m[2] ?? '', 'base64').toString('utf8') : decodeURIComponent(m[2] ?? '');
}

/** The guest NIC's keyfile: named after the interface and the host's first MAC. */
export const KEYFILE_PATH = `/etc/NetworkManager/system-connections/eth0-${NIC_MAC.replaceAll(':', '')}.nmconnection`;

/** Every file an Ignition config writes under `dir`, path → decoded contents. */
export function ignitionFilesUnder(ignition: Buffer, dir: string): Map<string, string> {
  const config = JSON.parse(ignition.toString('utf8')) as { storage?: { files?: { path: string }[] } };
  const out = new Map<string, string>();
  for (const f of config.storage?.files ?? []) {
    if (f.path.startsWith(dir)) out.set(f.path, ignitionFile(ignition, f.path) ?? '');
  }
  return out;
}
