// What the front door needs of the rest of bootsmith, as the wing declares it: of the core, an
// InfraEnv's name and architecture, its iPXE script (boot-order-control included) and boot
// files, the hosts that registered with a MAC or System UUID, the InfraEnvs whose
// mac_interface_map names a MAC, and events; of the BMC wing, which InfraEnv a machine whose BMC
// reported this MAC or UUID boots. src/assembly/front-door-wing.ts hands the core's
// (src/core/front-door-source.ts) and the BMC wing's implementations over; the compiler checks
// there that they fit.
// Does NOT: name a core or BMC module (this room imports neither).
import type { DiscoveryBoot } from '../boot-scripts/discovery-boot.js';
import type { IpxeScriptType } from '../boot-scripts/ipxe-script.js';

export type { IpxeScriptType } from '../boot-scripts/ipxe-script.js';

export interface FrontDoorBootFiles {
  kernel: string;
  initrd: string;
  rootfs: string;
  /** The kernel command line after the initrd: rootfs URL, fixed live arguments, the InfraEnv's. */
  kernelArguments: string;
  cpuArchitecture: string;
  /** The same boot as src/boot-scripts/ renders it (the grub.cfg). */
  boot: DiscoveryBoot;
}

export interface FrontDoorCorePort {
  infraEnv(id: string): Promise<{ id: string; name: string; cpuArchitecture: string } | undefined>;
  /** undefined: no such InfraEnv; `skip`: this host must not boot discovery (installed, or its MAC is ambiguous). */
  ipxeScript(
    infraEnvId: string,
    type: IpxeScriptType,
    mac: string | undefined,
  ): Promise<{ kind: 'script'; script: string } | { kind: 'skip'; reason: string } | undefined>;
  bootFiles(infraEnvId: string): Promise<FrontDoorBootFiles | undefined>;
  /** Hosts registered with this MAC on an interface or one of these ids (System UUIDs), newest first. */
  registrations(
    mac: string | undefined,
    uuids: readonly string[],
  ): Promise<{ infraEnvId: string; hostId: string; by: 'mac' | 'system-uuid' }[]>;
  staticNetworkInfraEnvs(mac: string): Promise<string[]>;
  recordEvent(event: {
    infraEnvId: string | null;
    hostId: string | null;
    name: string;
    severity: 'info' | 'warning';
    message: string;
  }): Promise<void>;
}

/** The BMC wing's answer: the InfraEnv a machine boots by what its BMC reported. */
export type BmcMachineLookup = (
  mac: string | undefined,
  uuids: readonly string[],
) => Promise<{ infraEnvId: string; bmcName: string; by: 'mac' | 'system-uuid' } | undefined>;
