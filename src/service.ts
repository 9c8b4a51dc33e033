// Starts one bootsmith process for its role: listens, loads the base images, creates the
// in-process assisted core (roles all/core) and the BMC side on its database (src/bmc/: the
// extension API, the job engine, the reads of job URLs), or the remote Ignition source (when
// ASSISTED_SERVICE_URL is set), and builds the app. `close()` undoes it all.
//
// The process is live at once; base images load in the background and are reported per
// image by /health. It listens before anything else so that default base URLs
// (IMAGE_SERVICE_BASE_URL, SERVICE_BASE_URL) are the address it really listens on: on every
// address (0.0.0.0, ::), the host's routable address (src/startup/: the default route's
// interface, or the only non-loopback address), and a start with no address to hand out is
// refused. What exposes the service (AUTH_TYPE=none beyond loopback) or hands out URLs only
// this machine reaches becomes a warning: logged, in /health and in the console's banner.
// With HTTPS_CERT_FILE/HTTPS_KEY_FILE, LISTEN_PORT serves HTTPS (certificates reloaded on
// change and on SIGHUP) and HTTP_LISTEN_PORT adds a plain listener for what iPXE fetches;
// iPXE scripts and PXE URLs then point at the plain one.
import http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ArtifactService } from './artifacts/artifact-service.js';
import type { Config } from './config.js';
import { type Core, createCore } from './core/index.js';
import { bmcRoutes } from './bmc/api/bmc-routes.js';
import { type BmcSide, createBmcSide } from './bmc/bmc-service.js';
import { bmcSettingsOf } from './bmc/settings.js';
import { createApp } from './http/face/app.js';
import {
  type ArtifactObserver,
  DedupingArtifactObserver,
  loggingArtifactObserver,
} from './image-ports/boot-event-observer.js';
import type { UrlTokenResolver } from './image-ports/url-token-resolver.js';
import { writeErrorResponse } from './http/representation/error-response.js';
import { Drain, type DrainResult } from './http/transport/drain.js';
import { createLimitedServer } from './http/transport/listener-limits.js';
import { CertificateReloader } from './http/transport/tls/certificate-reloader.js';
import { plainBaseUrl } from './http/face/plain-base-url.js';
import { plainHttpRefusal } from './http/face/plain-route-policy.js';
import { loadCaBundle, loadTlsMaterial } from './http/transport/tls/tls-material.js';
import { TlsMetrics } from './http/transport/tls/tls-metrics.js';
import { readOpenFileLimit } from './http/transport/open-file-limit.js';
import { fdBudgetProblem } from './http/face/request-cap-budget.js';
import { CachedIgnitionSource } from './image-ports/cached-ignition-source.js';
import { RemoteIgnitionSource } from './image-ports/remote/remote-source.js';
import { RemoteUrlTokenResolver } from './image-ports/remote/remote-url-tokens.js';
import { RemoteTokenReads } from './image-ports/remote/remote-token-reads.js';
import { loadReplicaKey } from './image-ports/remote/replica-proof.js';
import type { IgnitionSource } from './image-ports/ignition-source.js';
import { hostRegistryFiles } from './images/fetch/oci/registries-conf-render.js';
import { ManagedImageStore } from './images/managed-image-store.js';
import { Metrics } from './metrics.js';
import { type ResolvedBodyIo, resolveBodyIo } from './kernel-io/body-io-mode.js';
import { adminTokenFile } from './core/auth/local-keys.js';
import { type HostNetwork, readHostNetwork } from './startup/host-routes.js';
import { chooseAddress } from './startup/routable-address.js';
import { type HandedOutUrl, exposureWarnings, resolveBaseUrls } from './startup/reachability.js';
import type { StartSummary } from './startup/start-line.js';
import { prepareDataDir } from './startup/data-dir.js';
import { type ListenTarget, databaseUrlRefusal, listenRefusal } from './startup/setting-refusals.js';

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

export async function startService(
  config: Config,
  logger: Logger,
  options: {
    defaultMetrics?: boolean;
    now?: () => Date;
    /** This host's routes and addresses; read from /proc and os.networkInterfaces() when absent. */
    hostNetwork?: HostNetwork;
    /** Called once the service is ready, before the "bootsmith listening" log line (the CLI's human start line). */
    announce?: (summary: Omit<StartSummary, 'version'>) => void;
  } = {},
): Promise<RunningService> {
  let handler: http.RequestListener = (_req, res) => {
    res
      .writeHead(503, { 'Retry-After': '1', 'Content-Type': 'application/json' })
      .end('{"code":503,"message":"starting"}');
  };
  await prepareDataDir(config.dataDir); // refused with DATA_DIR named before anything writes there
  const metrics = new Metrics({ defaultMetrics: options.defaultMetrics ?? true });
  const tlsMaterial = config.tls ? await loadTlsMaterial(config.tls) : undefined;
  // the CA the discovery agent is told to trust: checked before anything listens, like the pair above
  const serviceCaCert =
    config.serviceCaCertFile && config.role !== 'image'
      ? await loadCaBundle(config.serviceCaCertFile, 'SERVICE_CA_CERT_FILE')
      : undefined;
  const {
    server,
    connectionCap,
    metrics: listenerMetrics,
  } = await createLimitedServer(
    config.listener,
    { logger, registry: metrics.registry },
    (req, res) => handler(req, res),
    tlsMaterial,
  );
  await listen(server, { portVariable: 'LISTEN_PORT', port: config.listenPort, address: config.listenAddress });
  const bound = server.address() as AddressInfo;
  const scheme = tlsMaterial ? 'https' : 'http';
  const url = listeningUrl(bound, scheme);
  let baseUrls;
  try {
    baseUrls = resolveBaseUrls({
      scheme,
      port: bound.port,
      listenAddress: config.listenAddress,
      imageServiceBaseUrl: config.imageServiceBaseUrl,
      serviceBaseUrl: config.serviceBaseUrl,
      choice: chooseAddress(bound.address, options.hostNetwork ?? (await readHostNetwork())),
    });
  } catch (err) {
    server.close();
    throw err;
  }
  const { imageServiceBaseUrl, serviceBaseUrl } = baseUrls;
  const drain = new Drain(server);

  // HTTP_LISTEN_PORT: plain HTTP next to HTTPS, by default only for what iPXE fetches.
  let plainServer: http.Server | undefined;
  let plainUrl: string | undefined;
  if (config.tls?.httpListenPort !== undefined) {
    const routes = config.tls.httpRoutes;
    plainServer = (
      await createLimitedServer(
        config.listener,
        { logger, registry: metrics.registry, metrics: listenerMetrics },
        (req, res) => {
          const httpsBase = req.url?.startsWith('/api/') ? serviceBaseUrl : imageServiceBaseUrl;
          const refusal = plainHttpRefusal(req.method, req.url, routes, httpsBase);
          if (refusal) writeErrorResponse(req, res, refusal);
          else handler(req, res);
        },
      )
    ).server;
    try {
      await listen(plainServer, {
        portVariable: 'HTTP_LISTEN_PORT',
        port: config.tls.httpListenPort,
        address: config.listenAddress,
      });
    } catch (err) {
      server.close();
      throw err;
    }
    plainUrl = listeningUrl(plainServer.address() as AddressInfo, 'http');
    drain.add(plainServer);
  }
  const plainPort = plainServer ? (plainServer.address() as AddressInfo).port : undefined;
  // The plain listener as others reach it: same host as the derived base URLs.
  const plainAdvertised =
    plainUrl && plainPort !== undefined && baseUrls.advertisedHost !== undefined
      ? `http://${baseUrls.advertisedHost}:${plainPort}`
      : plainUrl;
  // Where iPXE scripts and PXE artifacts point (iPXE speaks plain HTTP only).
  const pxeImageBaseUrl =
    config.imageServiceHttpBaseUrl ??
    (plainAdvertised && plainPort !== undefined
      ? plainBaseUrl(config.imageServiceBaseUrl, plainAdvertised, plainPort)
      : imageServiceBaseUrl);
  const pxeServiceBaseUrl =
    plainAdvertised && plainPort !== undefined
      ? plainBaseUrl(config.serviceBaseUrl, plainAdvertised, plainPort)
      : serviceBaseUrl;
  const servesApi = config.role !== 'image';
  const handedOut: HandedOutUrl[] = [
    { variable: 'IMAGE_SERVICE_BASE_URL', url: imageServiceBaseUrl, configured: !!config.imageServiceBaseUrl },
    ...(servesApi
      ? [{ variable: 'SERVICE_BASE_URL' as const, url: serviceBaseUrl, configured: !!config.serviceBaseUrl }]
      : []),
    ...(pxeImageBaseUrl !== imageServiceBaseUrl
      ? [
          {
            variable: 'IMAGE_SERVICE_HTTP_BASE_URL' as const,
            url: pxeImageBaseUrl,
            configured: !!config.imageServiceHttpBaseUrl,
          },
        ]
      : []),
  ];
  const warnings = [
    ...exposureWarnings({
      bound: bound.address,
      port: bound.port,
      authType: config.authType,
      servesApi,
      handedOut,
    }),
    // an OS image entry refused (and skipped) beside usable ones: in /health and the console's
    // banner too, not only one log line
    ...config.osImages.problems,
  ];

  let certificates: CertificateReloader | undefined;
  if (config.tls && tlsMaterial) {
    const tlsMetrics = new TlsMetrics(metrics.registry, () => certificates?.status());
    certificates = new CertificateReloader({
      files: config.tls,
      initial: tlsMaterial,
      apply: (material) => (server as https.Server).setSecureContext(material.secureContext),
      logger,
      onFailure: () => tlsMetrics.reloadFailures.inc(),
    });
    await certificates.start();
  }
  const onHangup = () => void certificates?.reload('SIGHUP');
  if (certificates) process.on('SIGHUP', onHangup);

  if (config.usingDemoImage)
    logger.warn('OS_IMAGES is not set: serving the bundled demo fixture image (not bootable on real hardware)');
  // The embedded PostgreSQL takes DATA_DIR's disk first (initdb; as root a copy of its binaries):
  // downloads, extractions and minimal ISO builds wait until it started, so on a nearly full disk
  // an image fails alone (with its reason) instead of racing the database's start and stopping
  // the process. Images already cached are checked and served meanwhile.
  let databaseStarted = (): void => undefined;
  const embeddedDatabase = config.role !== 'image' && !config.databaseUrl;
  const writesAfter = embeddedDatabase ? new Promise<void>((resolve) => (databaseStarted = resolve)) : undefined;
  const imageStore = new ManagedImageStore(config.osImages.entries, config.osImages.problems, logger, {
    dataDir: config.dataDir,
    settings: config.imageStore,
    metricsRegistry: metrics.registry,
    writesAfter,
  });
  const imagesLoaded = imageStore.loadAll();

  // In-process Ignition is cached like remote Ignition (a BMC's range storm must not
  // re-render it per request); the core invalidates an InfraEnv's entries on every change.
  let ignitionCache: CachedIgnitionSource | undefined;
  let core: Core | undefined;
  let bmc: BmcSide | undefined;
  /** How artifact bodies are read and sent (HTTP_BODY_IO); undefined without an image side. */
  let bodyIo: ResolvedBodyIo | undefined;
  let remoteReads: RemoteTokenReads | undefined;
  // The key image replicas sign their reports of BMC job URL reads with, and the core checks them by.
  const replicaKey = config.imageReplicaKeyFile ? await loadReplicaKey(config.imageReplicaKeyFile) : undefined;
  if (replicaKey && 'problem' in replicaKey)
    logger.error({ problem: replicaKey.problem }, 'image replica key unusable: reports of BMC job URL reads fail');
  try {
    if (config.role !== 'image') {
      core = await createCore({
        settings: config,
        endpoints: {
          serviceBaseUrl,
          imageServiceBaseUrl,
          pxeServiceBaseUrl,
          pxeImageBaseUrl,
          serviceCaCert,
          hostRegistry: hostRegistryFiles(config.imageStore.sources.registry),
        },
        catalog: imageStore.catalog,
        logger,
        now: options.now,
        onInfraEnvChange: (id) => ignitionCache?.invalidate(id),
        checkStaticNetwork: (id, entries) => bmc?.service.checkMacInterfaceMap(id, entries) ?? Promise.resolve(),
      })
        .catch((err: unknown) => {
          throw config.databaseUrl ? databaseUrlRefusal(err, config.databaseUrl) : err;
        })
        .finally(databaseStarted);
      // The BMC side (src/bmc/): records and jobs in the core's database; every replica with the
      // API runs jobs (one replica per job: leases), and its image side reports its jobs' ISO reads.
      const repo = core.extension.repo;
      bmc = createBmcSide({
        db: core.extension.db,
        core: {
          getInfraEnv: (id) => repo.getInfraEnv(id),
          infraEnvExists: (id) => repo.infraEnvExists(id),
          insertUrlTokens: (rows) => repo.insertUrlTokens(rows),
          insertEvent: (event) => repo.insertEvent(event),
        },
        settings: bmcSettingsOf(config),
        dataDir: config.dataDir,
        bases: {
          imageServiceBaseUrl,
          // the plain port serves ISOs only with HTTP_ROUTES=all (BMCs without HTTPS virtual media)
          imageHttpBaseUrl: plainServer && config.tls?.httpRoutes === 'all' ? pxeImageBaseUrl : undefined,
        },
        imageUrlTtlMs: config.imageUrlTtlMs,
        logger,
        ...(options.now ? { now: options.now } : {}),
      });
    }

    let artifacts: ArtifactService | undefined;
    let urlTokens: UrlTokenResolver | undefined;
    let observer: ArtifactObserver | undefined;
    if (config.role !== 'core') {
      bodyIo = resolveBodyIo(config.bodyIo);
      const fdProblem = fdBudgetProblem((await readOpenFileLimit())?.soft, connectionCap, config.maxConcurrentRequests);
      if (fdProblem) logger.warn({ problem: fdProblem }, 'file-descriptor budget too small for the request cap');
      const source: IgnitionSource | undefined = config.assistedServiceUrl
        ? new RemoteIgnitionSource({ baseUrl: config.assistedServiceUrl, metrics })
        : core?.ignitionSource;
      if (!source) throw new Error('no Ignition source: set ASSISTED_SERVICE_URL or run the core in-process');
      ignitionCache = new CachedIgnitionSource(source, { ttlMs: config.ignitionCacheTtlMs, metrics });
      // The minimal ISO's rootfs URL is fetched by the booting kernel: the plain base, as for PXE.
      artifacts = new ArtifactService(imageStore.catalog, ignitionCache, config.embedCompression, pxeImageBaseUrl);
      // Short opaque URL tokens: resolved by the in-process core, or asked of the fronted core.
      // Boot events belong to the in-process core; remote mode logs them.
      urlTokens = config.assistedServiceUrl
        ? new RemoteUrlTokenResolver({ baseUrl: config.assistedServiceUrl })
        : core?.urlTokenResolver;
      // Reads of BMC boot jobs' URLs go to the fronted core, whose jobs follow them.
      if (config.assistedServiceUrl && !core)
        remoteReads = new RemoteTokenReads({
          baseUrl: config.assistedServiceUrl,
          logger,
          replicaKey: replicaKey && 'key' in replicaKey ? replicaKey.key : undefined,
        });
      const now = options.now;
      observer = new DedupingArtifactObserver(
        config.assistedServiceUrl || !core ? loggingArtifactObserver(logger) : core.artifactObserver,
        logger,
        now ? () => now().getTime() : Date.now,
      );
    }
    const bmcSide = bmc;
    handler = createApp({
      kernelIo: bodyIo?.kernelIo,
      logger,
      metrics,
      imageStore: imageStore.catalog,
      artifacts,
      urlTokens,
      observer,
      ...(bmcSide && artifacts
        ? { tokenReads: { tokenRead: (report) => bmcSide.reads.report(report) } }
        : remoteReads
          ? { tokenReads: remoteReads }
          : {}),
      ...(bmcSide && core
        ? {
            extensionRouter: bmcRoutes({
              service: bmcSide.service,
              reads: bmcSide.reads,
              authorizeAdmin: core.extension.authorizeAdmin,
              replicaKey,
              errorHandler: core.extension.errorHandler,
            }),
          }
        : {}),
      requestCap: { max: config.maxConcurrentRequests, ...config.artifactSlots },
      coreRouter: core?.router,
      databaseHealth: core?.databaseHealth,
      tlsHealth: certificates ? () => certificates.status() : undefined,
      draining: () => drain.isDraining(),
      authType: config.authType,
      warnings,
    });
  } catch (err) {
    databaseStarted();
    process.off('SIGHUP', onHangup);
    certificates?.stop();
    server.close();
    plainServer?.close();
    await bmc?.close();
    await core?.close();
    await imageStore.close();
    throw err;
  }
  for (const note of baseUrls.notes) logger.info({ note }, 'base URLs');
  for (const warning of warnings) logger.warn({ warning }, 'check the configuration');
  const demo = config.usingDemoImage ? config.osImages.entries[0] : undefined;
  options.announce?.({
    servingUrl: baseUrls.advertisedUrl ?? url,
    serviceBaseUrl: servesApi ? serviceBaseUrl : undefined,
    authType: config.authType,
    adminTokenFile: servesApi && config.authType === 'local' ? adminTokenFile(config.dataDir) : undefined,
    notes: [
      ...(demo
        ? [
            `OS_IMAGES is not set: serving the bundled demo image (openshift_version ${demo.openshiftVersion}, ${demo.cpuArchitecture}; not bootable on real hardware)`,
          ]
        : []),
      ...baseUrls.notes,
    ],
    warnings,
  });
  logger.info(
    {
      url,
      imageServiceBaseUrl,
      serviceBaseUrl,
      ...(plainUrl ? { plainUrl, pxeImageBaseUrl } : {}),
      ...(certificates ? { certificate: certificates.status().serving } : {}),
      role: config.role,
      ignitionSource: config.assistedServiceUrl ? 'remote' : 'in-process',
      ...(bodyIo ? { bodyIo: bodyIo.summary } : {}),
    },
    'bootsmith listening',
  );

  const closeBehindListener = async () => {
    process.off('SIGHUP', onHangup);
    certificates?.stop();
    await bmc?.close(); // jobs stop at a step boundary and are released for another replica
    await remoteReads?.close();
    await core?.close(); // the embedded PostgreSQL stops here, after the streams
    await imageStore.close(); // stops downloads (their .part files are kept for resume)
    await imagesLoaded;
  };
  return {
    server,
    url,
    imageServiceBaseUrl,
    serviceBaseUrl,
    warnings,
    ...(plainServer && plainUrl ? { plainServer, plainUrl } : {}),
    ...(certificates ? { certificates } : {}),
    imageStore,
    metrics,
    imagesLoaded,
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

function listeningUrl(address: AddressInfo, scheme: 'http' | 'https'): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}`;
}

/** Listens as `target` says; a bind its setting makes impossible is a ConfigError naming the setting. */
function listen(server: http.Server, target: ListenTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refused = (err: unknown) => reject(listenRefusal(err, target));
    server.once('error', refused);
    server.listen(target.port, target.address, () => {
      server.off('error', refused);
      resolve();
    });
  });
}
