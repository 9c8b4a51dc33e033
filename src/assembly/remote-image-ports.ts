// Remote mode (ASSISTED_SERVICE_URL: the image side fronting an assisted-service): the image
// ports' implementations against the fronted core over HTTP (src/image-ports/remote/), as two
// rows of ./wings.ts. The Ignition source and the URL-token resolver ask the fronted core and
// boot events are logged (they belong to the fronted core's hosts), in place of the in-process
// core's when it runs too (`--role all`). The reads of BMC boot jobs' ISO URLs go to the fronted
// core, signed with IMAGE_REPLICA_KEY_FILE's key, where no BMC wing runs beside the image face
// (`--role image`); with the BMC wing here they go to it.
//
// Needs: ASSISTED_SERVICE_URL, the platform's metrics (upstream latency) and replica key.
// Offers: ignitionSource, urlTokens and bootEvents (swapped in); tokenReads; the reports' stop.
// Does NOT: serve anything (./image-face-wing.ts calls these ports). Next: ./image-face-wing.ts.
import type { Config } from '../config.js';
import { loggingArtifactObserver } from '../image-ports/boot-event-observer.js';
import { RemoteIgnitionSource } from '../image-ports/remote/remote-source.js';
import { RemoteTokenReads } from '../image-ports/remote/remote-token-reads.js';
import { RemoteUrlTokenResolver } from '../image-ports/remote/remote-url-tokens.js';
import type { Platform, Wing, WingModule } from './wing.js';
import type { WingPorts } from './ports.js';

export const remoteImagePorts: WingModule = {
  name: 'remote image ports',
  needs: {},
  offers: { swaps: ['ignitionSource', 'urlTokens', 'bootEvents'] },
  prepare: () => Promise.resolve(assemblePorts),
};

export const remoteTokenReads: WingModule = {
  name: 'remote token reads',
  needs: {},
  offers: { ports: ['tokenReads'] },
  prepare: () => Promise.resolve(assembleReads),
};

function assemblePorts({ config, logger, metrics }: Platform, ports: WingPorts): Promise<Wing> {
  const baseUrl = fronted(config);
  ports.swap({
    ignitionSource: new RemoteIgnitionSource({ baseUrl, metrics }),
    urlTokens: new RemoteUrlTokenResolver({ baseUrl }),
    bootEvents: loggingArtifactObserver(logger),
  });
  return Promise.resolve({});
}

function assembleReads({ config, logger, replicaKey }: Platform, ports: WingPorts): Promise<Wing> {
  const reads = new RemoteTokenReads({
    baseUrl: fronted(config),
    logger,
    replicaKey: replicaKey && 'key' in replicaKey ? replicaKey.key : undefined,
  });
  ports.offer({ tokenReads: reads });
  return Promise.resolve({ stop: () => reads.close() });
}

function fronted(config: Config): string {
  if (config.assistedServiceUrl === undefined) throw new Error('remote mode without ASSISTED_SERVICE_URL');
  return config.assistedServiceUrl;
}
