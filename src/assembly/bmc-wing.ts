// The BMC wing: BMC records and jobs over Redfish (src/bmc/) in the one database, and its
// extension API at EXTENSION_API_PREFIX. Every replica with the wing runs jobs (one replica per
// job: leases), and the image face of the same process reports its jobs' ISO reads to it.
//
// Needs: the BMC settings, DATA_DIR (the credentials key), the database, the handed-out image URLs
// (with the plain listener's when it serves ISOs), IMAGE_REPLICA_KEY_FILE's key (to check the read
// reports of image replicas), the coreDomain port (its CorePort, src/bmc/core-port.ts) and the
// adminGate port. Offers: the extension router, the ports tokenReads, staticNetworkCheck and bmcMachineLookup (the
// PXE front door's: which InfraEnv a machine whose BMC reported a MAC or UUID boots); its
// stop stops the jobs at a step boundary and releases them for another replica.
// Does NOT: serve the assisted API or ISOs. Next: ./pxe-wing.ts.
import { bmcRoutes } from '../bmc/api/bmc-routes.js';
import { createBmcSide } from '../bmc/bmc-service.js';
import { bmcSettingsOf } from '../bmc/settings.js';
import { EXTENSION_API_PREFIX } from '../url-grammar.js';
import type { Platform, Wing, WingModule } from './wing.js';
import type { WingPorts } from './ports.js';

export const bmcWing: WingModule = {
  name: 'bmc',
  needs: { database: true, ports: ['adminGate', 'coreDomain'] },
  offers: { ports: ['tokenReads', 'staticNetworkCheck', 'bmcMachineLookup'] },
  prepare: () => Promise.resolve(assemble),
};

async function assemble(platform: Platform, ports: WingPorts): Promise<Wing> {
  const { config, bases } = platform;
  const adminGate = ports.need('adminGate');
  const bmc = createBmcSide({
    db: await platform.database(),
    core: ports.need('coreDomain'),
    settings: bmcSettingsOf(config),
    dataDir: config.dataDir,
    bases: { imageServiceBaseUrl: bases.imageServiceBaseUrl, imageHttpBaseUrl: bases.plainIsoBaseUrl },
    imageUrlTtlMs: config.imageUrlTtlMs,
    logger: platform.logger,
    ...(platform.now ? { now: platform.now } : {}),
  });
  ports.offer({
    tokenReads: { tokenRead: (report) => bmc.reads.report(report) },
    staticNetworkCheck: (id, entries) => bmc.service.checkMacInterfaceMap(id, entries),
    bmcMachineLookup: (mac, uuids) => bmc.service.machineOf(mac, uuids),
  });
  const router = bmcRoutes({
    service: bmc.service,
    reads: bmc.reads,
    authorizeAdmin: adminGate.authorizeAdmin,
    replicaKey: platform.replicaKey,
    errorHandler: adminGate.errorHandler,
  });
  return { routers: [{ path: EXTENSION_API_PREFIX, router }], stop: () => bmc.close() };
}
