// The core wing: the compact assisted core (src/core/) on the one database: the assisted API at
// API_BASE, the host monitor, and the in-process implementations of the image ports.
//
// Needs: SERVICE_CA_CERT_FILE (read before anything listens: the CA the discovery agent is told to
// trust, refused naming the setting), the core's settings (the Config as it is), the database, the
// handed-out URLs, the imageStore port; when some wing offers them, staticNetworkCheck (the BMC
// wing) and infraEnvChanged (the image face), looked up when called. Offers: the router at
// API_BASE, `database` in /health, the ports ignitionSource, urlTokens, bootEvents (in-process;
// remote mode swaps them), coreDomain, adminGate and frontDoorSource (the PXE front door's); its stop stops the monitor and the event
// retention (the database stays open for the platform to close after it).
// Does NOT: open or close the database, or mount the console (./console-wing.ts). Next: ./bmc-wing.ts.
import { createCore } from '../core/index.js';
import { hostRegistryFiles } from '../images/fetch/oci/registries-conf-render.js';
import { loadCaBundle } from '../http/transport/tls/tls-material.js';
import { API_BASE } from '../url-grammar.js';
import type { AssembleWing, Platform, Wing, WingModule } from './wing.js';
import type { WingPorts } from './ports.js';

export const coreWing: WingModule = {
  name: 'core',
  needs: { database: true, ports: ['imageStore'], ifOffered: ['infraEnvChanged', 'staticNetworkCheck'] },
  offers: {
    api: true,
    ports: ['ignitionSource', 'urlTokens', 'bootEvents', 'coreDomain', 'adminGate', 'frontDoorSource'],
  },
  async prepare(config): Promise<AssembleWing> {
    const serviceCaCert = config.serviceCaCertFile
      ? await loadCaBundle(config.serviceCaCertFile, 'SERVICE_CA_CERT_FILE')
      : undefined;
    return (platform, ports) => assemble(platform, ports, serviceCaCert);
  },
};

async function assemble(platform: Platform, ports: WingPorts, serviceCaCert: string | undefined): Promise<Wing> {
  const { config, bases } = platform;
  const db = await platform.database();
  const core = await createCore({
    db,
    settings: config,
    endpoints: {
      serviceBaseUrl: bases.serviceBaseUrl,
      imageServiceBaseUrl: bases.imageServiceBaseUrl,
      pxeServiceBaseUrl: bases.pxeServiceBaseUrl,
      pxeImageBaseUrl: bases.pxeImageBaseUrl,
      serviceCaCert,
      hostRegistry: hostRegistryFiles(config.imageStore.sources.registry),
    },
    catalog: ports.need('imageStore').catalog,
    logger: platform.logger,
    now: platform.now,
    onInfraEnvChange: (id) => ports.find('infraEnvChanged')?.(id),
    checkStaticNetwork: (id, entries) => ports.find('staticNetworkCheck')?.(id, entries) ?? Promise.resolve(),
  }).catch((err: unknown) => {
    throw platform.databaseRefusal(err);
  });
  ports.offer({
    ignitionSource: core.ignitionSource,
    urlTokens: core.urlTokenResolver,
    bootEvents: core.artifactObserver,
    coreDomain: core.domain,
    adminGate: core.extension,
    frontDoorSource: core.frontDoorSource,
  });
  return {
    routers: [{ path: API_BASE, router: core.router }],
    health: [() => ({ fields: { database: core.databaseHealth() } })],
    stop: () => core.close(),
  };
}
