// INTERIM — the pxeFrontDoor port until the PXE front door (issue 32 part B: boot.ipxe matching,
// grub.cfg rendering, the pixiecore API, assignments) lands and replaces this module and its row
// in ./wings.ts with its own wing offering the same port. It knows no host: every iPXE client is
// sent to SERVICE_BASE_URL's plain-HTTP `/boot.ipxe` (the front door's route, served once it
// lands), no host is marked for Secure Boot (x86-64 UEFI clients get PXE_EFI_LOADER), HTTP Boot
// clients get no answer, and every grub.cfg is "not found". docs/operator/pxe.md says so.
// Needs: the handed-out bases. Offers: the pxeFrontDoor port. Runs wherever the PXE wing runs.
// Does NOT: match hosts to InfraEnvs or serve HTTP. Next: ./pxe-wing.ts.
import type { PxeFrontDoorPort } from '../pxe/front-door-port.js';
import type { Platform, Wing, WingModule } from './wing.js';
import type { WingPorts } from './ports.js';

export const pxeFrontDoorInterim: WingModule = {
  name: 'pxe front door (interim)',
  needs: {},
  offers: { ports: ['pxeFrontDoor'] },
  prepare: () => Promise.resolve(assemble),
};

/** The interim answers, from the plain-HTTP service base iPXE can reach. */
export function interimPxeFrontDoor(pxeServiceBaseUrl: string): PxeFrontDoorPort {
  const scriptUrl = `${pxeServiceBaseUrl.replace(/\/+$/, '')}/boot.ipxe`;
  return {
    ipxeScriptUrl: () => scriptUrl,
    bootChoice: () => Promise.resolve({ secureBoot: false, httpBootUrl: undefined }),
    grubConfig: () => Promise.resolve(undefined),
  };
}

function assemble({ bases }: Platform, ports: WingPorts): Promise<Wing> {
  ports.offer({ pxeFrontDoor: interimPxeFrontDoor(bases.pxeServiceBaseUrl) });
  return Promise.resolve({});
}
