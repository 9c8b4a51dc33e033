// What an InfraEnv's network-booted host is given (src/boot-scripts/discovery-boot.ts): its
// architecture, the plain-HTTP URLs of its kernel, its initrd (with the Ignition appended) and the
// rootfs (or the image's OS_IMAGES rootfs_url), with the agent token under AUTH_TYPE=local, and its
// kernel arguments. The iPXE script (handlers/downloads.ts) and the PXE front door's grub.cfg
// render from the same value (src/boot-scripts/ipxe-script.ts, grub-config.ts).
// Does NOT: render anything, or authorize the caller.
import type { DiscoveryBoot } from '../../boot-scripts/discovery-boot.js';
import type { CoreContext } from '../context.js';
import type { InfraEnvRecord } from '../model.js';
import { pxeUrls } from '../urls.js';

/** The api_key a script's URLs need to open the image side (AUTH_TYPE=local), else undefined. */
export function scriptUrlAuth(
  ctx: CoreContext,
  infraEnv: InfraEnvRecord,
): { param: 'api_key'; value: string } | undefined {
  if (ctx.settings.authType === 'local' && infraEnv.agentToken) return { param: 'api_key', value: infraEnv.agentToken };
  return undefined;
}

export function discoveryBootOf(ctx: CoreContext, infraEnv: InfraEnvRecord): DiscoveryBoot {
  const urls = pxeUrls(
    ctx.settings.pxeImageBaseUrl ?? ctx.settings.imageServiceBaseUrl, // plain HTTP next to HTTPS: iPXE and GRUB lack TLS
    infraEnv.id,
    infraEnv.openshiftVersion,
    infraEnv.cpuArchitecture,
    scriptUrlAuth(ctx, infraEnv),
  );
  // OS_IMAGES rootfs_url (validated for iPXE and kernel command lines when the config is parsed)
  const externalRootfs = ctx.catalog.find(infraEnv.openshiftVersion, infraEnv.cpuArchitecture)?.rootfsUrl;
  return {
    arch: infraEnv.cpuArchitecture,
    urls: externalRootfs === undefined ? urls : { ...urls, rootfs: externalRootfs },
    kernelArguments: (infraEnv.kernelArguments ?? []).map((k) => k.value),
  };
}
