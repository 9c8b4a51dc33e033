// The PXE front door wing (src/front-door/): /boot.ipxe and the per-host answers (iPXE, GRUB,
// pixiecore's API) at the root, served by the plain listener too; the assignments and the DHCP
// snippets at EXTENSION_API_PREFIX/pxe (admin only); its table in the one database.
//
// Needs: PXE_FRONT_DOOR, PXE_DEFAULT_INFRA_ENV, PXE_IPXE_SCRIPT_TYPE, PXE_UNKNOWN_HOST_RETRY; the
// database; the plain (PXE) service base; the ports frontDoorSource (the core's answers) and
// adminGate; bmcMachineLookup when the BMC wing offers it (looked up at each decision: the BMC
// wing comes after this one, so the BMC extension router cannot shadow /pxe's). Offers: its two
// routers, `pxe_front_door` in /health (when on), its metrics on the service's registry
// (bootsmith_pxe_front_door_*), and the pxeFrontDoor port: what the PXE wing's ProxyDHCP
// and TFTP ask. The PXE wing (src/pxe/, issue 32's network half) takes it as its
// PxeFrontDoorPort: `frontDoor: ports.need('pxeFrontDoor')` (structurally the same shape; the
// compiler checks it there), its row after this one in ./wings.ts.
// Does NOT: answer DHCP or TFTP (the PXE wing does), or know the BMC wing.
import { AssignmentStore } from '../front-door/assignments/assignment-store.js';
import { FrontDoor } from '../front-door/front-door.js';
import { frontDoorAdminRoutes, frontDoorHostRoutes } from '../front-door/front-door-routes.js';
import type { FrontDoorCorePort } from '../front-door/core-port.js';
import { EXTENSION_API_PREFIX } from '../url-grammar.js';
import type { WingPorts } from './ports.js';
import type { Platform, Wing, WingModule } from './wing.js';

export const frontDoorWing: WingModule = {
  name: 'front door',
  needs: { database: true, ports: ['frontDoorSource', 'adminGate'], ifOffered: ['bmcMachineLookup'] },
  offers: { ports: ['pxeFrontDoor'] },
  prepare: () => Promise.resolve(assemble),
};

async function assemble(platform: Platform, ports: WingPorts): Promise<Wing> {
  const { config, bases } = platform;
  const now = platform.now ?? (() => new Date());
  const core: FrontDoorCorePort = ports.need('frontDoorSource');
  const adminGate = ports.need('adminGate');
  const assignments = new AssignmentStore(await platform.database(), now);
  const door = new FrontDoor({
    settings: config,
    core,
    bmc: () => ports.find('bmcMachineLookup'),
    assignments,
    pxeServiceBaseUrl: bases.pxeServiceBaseUrl,
    logger: platform.logger.child({ component: 'front-door' }),
    now,
    registry: platform.metrics.registry,
  });
  ports.offer({ pxeFrontDoor: door.pxePort() });
  const admin = frontDoorAdminRoutes({
    door,
    assignments,
    authorizeAdmin: adminGate.authorizeAdmin,
    errorHandler: adminGate.errorHandler,
    infraEnvExists: async (id) => (await core.infraEnv(id)) !== undefined,
  });
  return {
    routers: [
      { path: undefined, router: frontDoorHostRoutes(door) },
      { path: `${EXTENSION_API_PREFIX}/pxe`, router: admin },
    ],
    // Off, /health is as without the wing (as the PXE wing's while PXE_INTERFACE is unset).
    health: config.pxeFrontDoor ? [() => ({ fields: { pxe_front_door: door.status() } })] : [],
  };
}
