// Starts one bootsmith process for its role: listens, loads the base images, creates the
// in-process assisted core (roles all/core) or the remote Ignition source (when
// ASSISTED_SERVICE_URL is set), and builds the app. `close()` undoes it all.
//
// The process is live at once; base images load in the background and are reported per
// image by /health. It listens before anything else so that default base URLs
// (IMAGE_SERVICE_BASE_URL, SERVICE_BASE_URL) are the address it really listens on.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ArtifactService } from './artifacts/artifact-service.js';
import type { Config } from './config.js';
import { type Core, createCore } from './core/index.js';
import { createApp } from './http/app.js';
import { type ArtifactObserver, DedupingArtifactObserver, loggingArtifactObserver } from './http/artifact-observer.js';
import type { UrlTokenResolver } from './ignition-supply/url-token-resolver.js';
import { createLimitedServer } from './http/listener-limits.js';
import { readOpenFileLimit } from './http/open-file-limit.js';
import { fdBudgetProblem } from './http/request-cap-budget.js';
import { CachedIgnitionSource } from './ignition-supply/cached-source.js';
import { RemoteIgnitionSource } from './ignition-supply/remote-source.js';
import { RemoteUrlTokenResolver } from './ignition-supply/remote-url-tokens.js';
import type { IgnitionSource } from './ignition-supply/source.js';
import { ManagedImageStore } from './images/managed-image-store.js';
import { Metrics } from './metrics.js';

export interface RunningService {
  server: http.Server;
  /** The URL this process listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  imageStore: ManagedImageStore;
  metrics: Metrics;
  /** Resolves once every configured base image has been loaded or marked failed. */
  imagesLoaded: Promise<void>;
  close(): Promise<void>;
}

export async function startService(
  config: Config,
  logger: Logger,
  options: { defaultMetrics?: boolean; now?: () => Date } = {},
): Promise<RunningService> {
  let handler: http.RequestListener = (_req, res) => {
    res
      .writeHead(503, { 'Retry-After': '1', 'Content-Type': 'application/json' })
      .end('{"code":503,"message":"starting"}');
  };
  const metrics = new Metrics({ defaultMetrics: options.defaultMetrics ?? true });
  const { server, connectionCap } = await createLimitedServer(
    config.listener,
    { logger, registry: metrics.registry },
    (req, res) => handler(req, res),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listenPort, config.listenAddress, () => resolve());
  });
  const url = listeningUrl(server.address() as AddressInfo);
  const imageServiceBaseUrl = config.imageServiceBaseUrl ?? url;
  const serviceBaseUrl = config.serviceBaseUrl ?? url;

  for (const problem of config.osImages.problems) logger.error({ problem }, 'invalid OS image entry skipped');
  if (config.usingDemoImage)
    logger.warn('OS_IMAGES is not set: serving the bundled demo fixture image (not bootable on real hardware)');
  const imageStore = new ManagedImageStore(config.osImages.entries, config.osImages.problems, logger, {
    dataDir: config.dataDir,
    settings: config.imageStore,
    metricsRegistry: metrics.registry,
  });
  const imagesLoaded = imageStore.loadAll();

  // In-process Ignition is cached like remote Ignition (a BMC's range storm must not
  // re-render it per request); the core invalidates an InfraEnv's entries on every change.
  let ignitionCache: CachedIgnitionSource | undefined;
  let core: Core | undefined;
  try {
    if (config.role !== 'image') {
      core = await createCore({
        ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
        dataDir: config.dataDir,
        serviceBaseUrl,
        imageServiceBaseUrl,
        authType: config.authType,
        hostMaxDisconnectionMs: config.hostMaxDisconnectionMs,
        adminTokenTtlMs: config.adminTokenTtlMs,
        agentImage: config.agentImage,
        embeddedPostgresUser: config.embeddedPostgresUser,
        catalog: imageStore.catalog,
        logger,
        imageUrlTtlMs: config.imageUrlTtlMs,
        ...(options.now ? { now: options.now } : {}),
        onInfraEnvChange: (id) => ignitionCache?.invalidate(id),
      });
    }

    let artifacts: ArtifactService | undefined;
    let urlTokens: UrlTokenResolver | undefined;
    let observer: ArtifactObserver | undefined;
    if (config.role !== 'core') {
      const fdProblem = fdBudgetProblem((await readOpenFileLimit())?.soft, connectionCap, config.maxConcurrentRequests);
      if (fdProblem) logger.warn({ problem: fdProblem }, 'file-descriptor budget too small for the request cap');
      const source: IgnitionSource | undefined = config.assistedServiceUrl
        ? new RemoteIgnitionSource({ baseUrl: config.assistedServiceUrl, metrics })
        : core?.ignitionSource;
      if (!source) throw new Error('no Ignition source: set ASSISTED_SERVICE_URL or run the core in-process');
      ignitionCache = new CachedIgnitionSource(source, { ttlMs: config.ignitionCacheTtlMs, metrics });
      artifacts = new ArtifactService(imageStore.catalog, ignitionCache, config.embedCompression, imageServiceBaseUrl);
      // Short opaque URL tokens: resolved by the in-process core, or asked of the fronted core.
      // Boot events belong to the in-process core; remote mode logs them.
      urlTokens = config.assistedServiceUrl
        ? new RemoteUrlTokenResolver({ baseUrl: config.assistedServiceUrl })
        : core?.urlTokenResolver;
      const now = options.now;
      observer = new DedupingArtifactObserver(
        config.assistedServiceUrl || !core ? loggingArtifactObserver(logger) : core.artifactObserver,
        logger,
        now ? () => now().getTime() : Date.now,
      );
    }
    handler = createApp({
      logger,
      metrics,
      imageStore: imageStore.catalog,
      ...(artifacts ? { artifacts } : {}),
      ...(urlTokens ? { urlTokens } : {}),
      ...(observer ? { observer } : {}),
      maxConcurrentRequests: config.maxConcurrentRequests,
      ...(core ? { coreRouter: core.router, databaseHealth: core.databaseHealth } : {}),
    });
  } catch (err) {
    server.close();
    await core?.close();
    await imageStore.close();
    throw err;
  }
  logger.info(
    {
      url,
      imageServiceBaseUrl,
      serviceBaseUrl,
      role: config.role,
      ignitionSource: config.assistedServiceUrl ? 'remote' : 'in-process',
    },
    'bootsmith listening',
  );

  return {
    server,
    url,
    imageStore,
    metrics,
    imagesLoaded,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await core?.close();
      await imageStore.close(); // stops downloads (their .part files are kept for resume)
      await imagesLoaded;
    },
  };
}

function listeningUrl(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
