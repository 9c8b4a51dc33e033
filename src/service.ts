// Starts one bootsmith process: opens the platform (the listeners, src/assembly/listeners.ts, and
// the database when a wing asks for it, src/assembly/platform.ts), assembles the wings its role
// runs (src/assembly/wings.ts: the image store, the assisted core, the BMC wing, the console, the
// image face, and in remote mode the image ports against a fronted assisted-service), hands the
// app their routers, /health parts and image face, starts them, and reports ready. `close()`
// undoes it all: the listeners drain (SIGTERM: `shutdown`, streams get their grace), then the
// wings stop in reverse order.
//
// The process is live at once; base images load in the background and are reported per image by
// /health. What exposes the service or hands out URLs only this machine reaches becomes a
// warning: logged, in /health and in the console's banner.
// Does NOT: know a role or a wing's parts (the table and the wing modules do).
import type http from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createApp } from './http/face/app.js';
import type { HealthPart } from './http/face/routes/health.js';
import type { Drain, DrainResult } from './http/transport/drain.js';
import type { CertificateReloader } from './http/transport/tls/certificate-reloader.js';
import { loadTlsMaterial } from './http/transport/tls/tls-material.js';
import type { ManagedImageStore } from './images/managed-image-store.js';
import { Metrics } from './metrics.js';
import { adminTokenFile } from './core/auth/local-keys.js';
import type { HostNetwork } from './startup/host-routes.js';
import type { StartSummary } from './startup/start-line.js';
import { prepareDataDir } from './startup/data-dir.js';
import { type Listeners, openListeners } from './assembly/listeners.js';
import { StopOrder, openPlatform } from './assembly/platform.js';
import { PortBoard } from './assembly/port-board.js';
import type { Wing } from './assembly/wing.js';
import { wingsOf } from './assembly/wings.js';

export interface RunningService {
  /** LISTEN_PORT's server (an https.Server with native TLS). */
  server: http.Server;
  /** The URL this process listens on, e.g. http://127.0.0.1:8080 (https:// with native TLS) */
  url: string;
  /** Where BMCs and hosts are sent: IMAGE_SERVICE_BASE_URL and SERVICE_BASE_URL, configured or derived. */
  imageServiceBaseUrl: string;
  serviceBaseUrl: string;
  /** What exposes the service or hands out unreachable URLs (also in /health and the console). */
  warnings: string[];
  /** HTTP_LISTEN_PORT's plain server and URL, next to HTTPS. */
  plainServer?: http.Server;
  plainUrl?: string;
  /** Native TLS: reloads the certificate (also on SIGHUP). */
  certificates?: CertificateReloader;
  imageStore: ManagedImageStore;
  metrics: Metrics;
  /** Resolves once every configured base image has been loaded or marked failed. */
  imagesLoaded: Promise<void>;
  /** Graceful drain state of the listener (src/http/transport/drain.ts). */
  drain: Drain;
  close(): Promise<void>;
  /** SIGTERM: drain the listener (streams get `graceMs`), then close everything behind it. */
  shutdown(graceMs: number): Promise<DrainResult>;
}

export interface StartOptions {
  defaultMetrics?: boolean;
  now?: () => Date;
  /** This host's routes and addresses; read from /proc and os.networkInterfaces() when absent. */
  hostNetwork?: HostNetwork;
  /** Called once the service is ready, before the "bootsmith listening" log line (the CLI's human start line). */
  announce?: (summary: Omit<StartSummary, 'version'>) => void;
}

export async function startService(
  config: Config,
  logger: Logger,
  options: StartOptions = {},
): Promise<RunningService> {
  await prepareDataDir(config.dataDir); // refused with DATA_DIR named before anything writes there
  const metrics = new Metrics({ defaultMetrics: options.defaultMetrics ?? true });
  const tlsMaterial = config.tls ? await loadTlsMaterial(config.tls) : undefined;
  const modules = wingsOf(config.role, config.assistedServiceUrl !== undefined);
  const assemblies = [];
  for (const wing of modules) assemblies.push(await wing.prepare(config)); // before anything listens
  const servesApi = modules.some((wing) => wing.offers.api);
  const listeners = await openListeners(config, {
    logger,
    metrics,
    tlsMaterial,
    servesApi,
    hostNetwork: options.hostNetwork,
  });
  // an OS image entry refused (and skipped) beside usable ones: in /health and the console's banner too
  const warnings = [...listeners.warnings, ...config.osImages.problems];
  const stops = new StopOrder();
  const { platform, databaseSettled } = await openPlatform(config, {
    logger,
    metrics,
    now: options.now,
    listeners,
    warnings,
    usesDatabase: modules.some((wing) => wing.needs.database),
    stops,
  });
  const ports = new PortBoard();
  const wings: Wing[] = [];
  try {
    const lastOnDatabase = modules.findLastIndex((wing) => wing.needs.database);
    for (const [index, assemble] of assemblies.entries()) {
      const wing = await assemble(platform, ports.of(modules[index]!));
      wings.push(wing);
      const { stop } = wing;
      if (stop) stops.push(() => stop());
      if (index === lastOnDatabase) databaseSettled();
    }
    listeners.serve(
      createApp({
        logger,
        metrics,
        health: healthParts(wings, listeners, warnings),
        draining: () => listeners.drain.isDraining(),
        routers: wings.flatMap((wing) => wing.routers ?? []),
        imageFace: wings.find((wing) => wing.imageFace)?.imageFace,
      }),
    );
    for (const wing of wings) await wing.start?.();
  } catch (err) {
    databaseSettled();
    listeners.stopCertificates();
    listeners.close();
    await stops.unwind();
    throw err;
  }
  announce(config, logger, options, { listeners, warnings, servesApi });

  const closeBehindListener = async () => {
    listeners.stopCertificates();
    await stops.unwind();
  };
  const { server, url, drain, certificates, plainServer, plainUrl } = listeners;
  return {
    server,
    url,
    imageServiceBaseUrl: platform.bases.imageServiceBaseUrl,
    serviceBaseUrl: platform.bases.serviceBaseUrl,
    warnings,
    ...(plainServer && plainUrl ? { plainServer, plainUrl } : {}),
    ...(certificates ? { certificates } : {}),
    imageStore: ports.read('imageStore')!,
    metrics,
    imagesLoaded: ports.read('imagesLoaded')!,
    drain,
    async close() {
      await drain.drain(0);
      await closeBehindListener();
    },
    async shutdown(graceMs: number) {
      const result = await drain.drain(graceMs);
      await closeBehindListener();
      return result;
    },
  };
}

/** /health's parts: the wings', the start's warnings, and with native TLS the serving certificate. */
function healthParts(wings: readonly Wing[], { certificates }: Listeners, warnings: readonly string[]): HealthPart[] {
  return [
    ...wings.flatMap((wing) => wing.health ?? []),
    () => ({ fields: { warnings } }),
    ...(certificates ? [() => ({ fields: { tls: certificates.status() } })] : []),
  ];
}

/** The start's notes and warnings, the CLI's start line, and the "bootsmith listening" line. */
function announce(
  config: Config,
  logger: Logger,
  options: StartOptions,
  { listeners, warnings, servesApi }: { listeners: Listeners; warnings: readonly string[]; servesApi: boolean },
): void {
  const { url, plainUrl, certificates, bases } = listeners;
  for (const note of listeners.notes) logger.info({ note }, 'base URLs');
  for (const warning of warnings) logger.warn({ warning }, 'check the configuration');
  const demo = config.usingDemoImage ? config.osImages.entries[0] : undefined;
  options.announce?.({
    servingUrl: listeners.advertisedUrl ?? url,
    serviceBaseUrl: servesApi ? bases.serviceBaseUrl : undefined,
    authType: config.authType,
    adminTokenFile: servesApi && config.authType === 'local' ? adminTokenFile(config.dataDir) : undefined,
    notes: [
      ...(demo
        ? [
            `OS_IMAGES is not set: serving the bundled demo image (openshift_version ${demo.openshiftVersion}, ${demo.cpuArchitecture}; not bootable on real hardware)`,
          ]
        : []),
      ...listeners.notes,
    ],
    warnings: [...warnings],
  });
  logger.info(
    {
      url,
      imageServiceBaseUrl: bases.imageServiceBaseUrl,
      serviceBaseUrl: bases.serviceBaseUrl,
      ...(plainUrl ? { plainUrl, pxeImageBaseUrl: bases.pxeImageBaseUrl } : {}),
      ...(certificates ? { certificate: certificates.status().serving } : {}),
      role: config.role,
      ignitionSource: config.assistedServiceUrl ? 'remote' : 'in-process',
    },
    'bootsmith listening',
  );
}
