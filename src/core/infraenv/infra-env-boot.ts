// What an InfraEnv boots over the network, for every way a host asks: its iPXE script (the
// downloads route, src/core/handlers/downloads.ts, and the PXE front door through
// ../front-door-source.ts) and its boot files (kernel, Ignition-carrying pxe-initrd, rootfs and the
// live kernel arguments) that GRUB and pixiecore are handed. Both render from the one
// DiscoveryBoot value (./discovery-boot.ts) through src/boot-scripts/.
//
// Asked with a MAC (either script type, as upstream's route): a host of the InfraEnv with that MAC
// that is installed (or past the point of no return of its install) is a NotFoundError, so
// firmware falls through to its disk; two hosts with that MAC are a ConflictError (upstream's
// answers, both). boot-order-control without a MAC is the redirect that comes back with it.
// Does NOT: parse requests, authorize, or choose the InfraEnv (the caller did).
import type { DiscoveryBoot } from '../../boot-scripts/discovery-boot.js';
import { liveKernelArguments } from '../../boot-scripts/discovery-boot.js';
import { type IpxeScriptType, ipxeBootScript, ipxeRedirectScript } from '../../boot-scripts/ipxe-script.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { parseInventory } from '../host/validations.js';
import type { InfraEnvRecord } from '../model.js';
import { filesUrl } from '../urls.js';
import { discoveryBootOf, scriptUrlAuth } from './discovery-boot.js';

export { IPXE_SCRIPT_TYPES, type IpxeScriptType } from '../../boot-scripts/ipxe-script.js';

/** The files a network boot of the InfraEnv loads, as plain-HTTP URLs, and the kernel command line after the initrd. */
export interface InfraEnvBootFiles {
  kernel: string;
  initrd: string;
  rootfs: string;
  /** Live boot arguments: the rootfs URL, the arch's fixed ones, the InfraEnv's (checked for GRUB's and iPXE's grammars). */
  kernelArguments: string;
  cpuArchitecture: string;
  /** The same, as the boot-script renderers take it (src/boot-scripts/grub-config.ts). */
  boot: DiscoveryBoot;
}

export function infraEnvBootFiles(ctx: CoreContext, infraEnv: InfraEnvRecord): InfraEnvBootFiles {
  const boot = discoveryBootOf(ctx, infraEnv);
  return {
    ...boot.urls,
    kernelArguments: liveKernelArguments(boot).join(' '),
    cpuArchitecture: infraEnv.cpuArchitecture,
    boot,
  };
}

async function installedHostWithMac(ctx: CoreContext, infraEnvId: string, mac: string): Promise<boolean> {
  const wanted = mac.toLowerCase().replaceAll('-', ':');
  const hosts = await ctx.repo.listHosts(infraEnvId);
  const matching = hosts.filter((h) =>
    (parseInventory(h.inventory)?.interfaces ?? []).some((i) => (i.mac_address ?? '').toLowerCase() === wanted),
  );
  if (matching.length > 1) throw new ConflictError(`IPXE booting skipped: ${matching.length} hosts have MAC ${wanted}`);
  const h = matching[0];
  if (!h) return false;
  if (h.status === 'installed') return true;
  const stage = h.progress?.current_stage;
  return (
    h.status === 'installing-in-progress' &&
    !!stage &&
    ['Done', 'Configuring', 'Joined', 'Rebooting', 'Waiting for ignition'].includes(stage)
  );
}

/**
 * The InfraEnv's iPXE script. `mac` (a valid MAC, checked by the caller) asks for the boot script
 * of that host, refused for an installed one; boot-order-control without it is the redirect that
 * comes back with the host's MAC.
 */
export async function infraEnvIpxeScript(
  ctx: CoreContext,
  infraEnv: InfraEnvRecord,
  type: IpxeScriptType,
  mac: string | undefined,
): Promise<string> {
  if (mac !== undefined) {
    if (await installedHostWithMac(ctx, infraEnv.id, mac)) {
      throw new NotFoundError(
        `IPXE booting skipped: the host with MAC ${mac} in infra-env ${infraEnv.id} is already installed`,
      );
    }
  } else if (type === 'boot-order-control') {
    const auth = scriptUrlAuth(ctx, infraEnv);
    const q: Record<string, string> = { file_name: 'ipxe-script', ipxe_script_type: 'boot-order-control' };
    if (auth) q[auth.param] = auth.value;
    return ipxeRedirectScript(filesUrl(ctx.settings.pxeServiceBaseUrl ?? ctx.settings.serviceBaseUrl, infraEnv.id, q));
  }
  return ipxeBootScript(discoveryBootOf(ctx, infraEnv));
}
