// The compact assisted core: createCore wires storage, auth, the host monitor and the
// assisted-service v2 router (mounted by the app at API_BASE, src/url-grammar.ts).
//
// Exports the Core the app and the image side use: `router`, `ignitionSource`, `close`,
// plus `auth` helpers (tokens for operators and tests). Does not listen on a port.
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { ImageCatalog } from '../images/catalog/catalog-image.js';
import type { IgnitionSource } from '../ignition-supply/source.js';
import { Authorizer } from './auth/authorizer.js';
import { DEFAULT_IMAGE_TOKEN_TTL_MS, issueImageToken } from './auth/image-tokens.js';
import { LocalKeys } from './auth/local-keys.js';
import { UrlTokens } from './auth/url-tokens.js';
import type { CoreContext } from './context.js';
import { migrate } from './db/migrations.js';
import { createRepository } from './db/repository.js';
import { pgliteEraNotice } from './db/pglite-era.js';
import { openDatabase } from './db/sql.js';
import { registerDownloadRoutes } from './handlers/downloads.js';
import { registerEventRoutes } from './handlers/events.js';
import { registerHostRoutes } from './handlers/hosts.js';
import { registerImageUrlTokenRoutes } from './handlers/image-url-tokens.js';
import { registerInfraEnvRoutes } from './handlers/infra-envs.js';
import { registerInstructionRoutes } from './handlers/instructions.js';
import { registerVersionRoutes } from './handlers/versions.js';
import { methodGuard } from './http/method-guard.js';
import { startMonitor } from './host/monitor.js';
import { assistedErrorHandler } from './http/error-handler.js';
import { inputGuard } from './http/input-guard.js';
import { DEFAULT_AGENT_IMAGE } from './discovery-ignition/discovery.js';
import { DiscoveryRenderCache } from './discovery-ignition/render-cache.js';
import { getInfraEnvOr404 } from './infraenv/service.js';
import { createIgnitionSource, createUrlTokenResolver } from './in-process-ignition-source.js';
import { createBootEventRecorder } from './events/boot-events.js';
import { DEFAULT_EVENT_SETTINGS, type EventSettings } from './events/event-limits.js';
import { EventPostLimiter } from './events/post-limits.js';
import { startEventRetention } from './events/retention.js';
import type { UrlTokenResolver } from '../ignition-supply/url-token-resolver.js';
import type { ArtifactObserver } from '../http/face/artifact-observer.js';

export interface CoreOptions {
  databaseUrl?: string;
  dataDir: string;
  serviceBaseUrl: string;
  imageServiceBaseUrl: string;
  /** Plain-HTTP bases for iPXE scripts and PXE artifacts (native TLS with HTTP_LISTEN_PORT). */
  pxeServiceBaseUrl?: string;
  pxeImageBaseUrl?: string;
  authType: 'none' | 'local';
  hostMaxDisconnectionMs: number;
  catalog: ImageCatalog;
  logger: Logger;
  runMonitor?: boolean;
  /** How often the host monitor runs; default min(hostMaxDisconnectionMs / 3, 30 s), at least 100 ms. */
  monitorIntervalMs?: number;
  /** Discovery agent image (Config.agentImage, upstream AGENT_DOCKER_IMAGE); default upstream's. */
  agentImage?: string | undefined;
  /** PEM CA bundle the discovery agent trusts for SERVICE_BASE_URL (SERVICE_CA_CERT_FILE, checked by the caller). */
  serviceCaCert?: string | undefined;
  /** Config.embeddedPostgresUser: the OS user of the embedded PostgreSQL when bootsmith is root. */
  embeddedPostgresUser?: string | undefined;
  /** Image token lifetime (upstream IMAGE_EXPIRATION_TIME), default 4 h. */
  imageTokenTtlMs?: number;
  /** IMAGE_URL_TTL: lifetime of short image-URL tokens; default 4 h. */
  imageUrlTtlMs?: number;
  /** The core's clock (tests inject one); default the system clock. */
  now?: () => Date;
  /** ADMIN_TOKEN_TTL: admin tokens expire this long after signing; default never. */
  adminTokenTtlMs?: number | undefined;
  /** Request body limit of the API; default 2 MiB. */
  bodyLimitBytes?: number;
  /** Called after a change to an InfraEnv has committed (the image side drops cached artifacts). */
  onInfraEnvChange?: (infraEnvId: string) => void;
  /** Bounds on posted, kept and listed events; defaults DEFAULT_EVENT_SETTINGS (src/config.ts reads them). */
  events?: Partial<EventSettings>;
  /** How often event retention runs; default EVENTS_PRUNE_INTERVAL_MS. Off with runMonitor false. */
  eventRetentionIntervalMs?: number;
}

export interface CoreAuthHelpers {
  /** Admin bearer token (AUTH_TYPE=local); also written to DATA_DIR/auth/admin-token. */
  adminToken(): Promise<string>;
  /** The InfraEnv-scoped ES256 token (agent X-Secret-Key / api_key). */
  infraEnvToken(infraEnvId: string): Promise<string>;
  /** A fresh expiring image token of the InfraEnv. */
  imageToken(infraEnvId: string, ttlMs?: number): Promise<{ token: string; expiresAt: Date }>;
}

export interface Core {
  router: Router;
  /** What /health reports about storage: the engine, its state, and what an operator must do. */
  databaseHealth(): { engine: 'embedded' | 'external'; state: string; notices: string[] };
  ignitionSource: IgnitionSource;
  /** Resolves opaque `/bytoken/<token>/…` URL tokens for the image side. */
  urlTokenResolver: UrlTokenResolver;
  /** Records boot events (first ISO / PXE artifact request per client) for the image side. */
  artifactObserver: ArtifactObserver;
  auth: CoreAuthHelpers;
  close(): Promise<void>;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const db = await openDatabase(options);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  const pgliteNotice = options.databaseUrl ? undefined : await pgliteEraNotice(options.dataDir);
  if (pgliteNotice) options.logger.warn(pgliteNotice);
  const repo = createRepository(db);
  const keys =
    options.authType === 'local'
      ? await LocalKeys.load(repo, options.dataDir, {
          adminTokenTtlMs: options.adminTokenTtlMs,
          sharedDatabase: !!options.databaseUrl,
        })
      : undefined;
  const logger = options.logger.child({ component: 'core' });
  const now = options.now ?? (() => new Date());
  const imageUrlTtlMs = options.imageUrlTtlMs ?? DEFAULT_IMAGE_TOKEN_TTL_MS;
  const urlTokens = new UrlTokens(repo, imageUrlTtlMs, now);
  const events: EventSettings = { ...DEFAULT_EVENT_SETTINGS, ...options.events };
  const ctx: CoreContext = {
    repo,
    catalog: options.catalog,
    authorizer: new Authorizer(options.authType, keys, repo, urlTokens),
    keys,
    urlTokens,
    settings: {
      serviceBaseUrl: options.serviceBaseUrl,
      imageServiceBaseUrl: options.imageServiceBaseUrl,
      ...(options.pxeServiceBaseUrl ? { pxeServiceBaseUrl: options.pxeServiceBaseUrl } : {}),
      ...(options.pxeImageBaseUrl ? { pxeImageBaseUrl: options.pxeImageBaseUrl } : {}),
      authType: options.authType,
      hostMaxDisconnectionMs: options.hostMaxDisconnectionMs,
      agentImage: options.agentImage ?? DEFAULT_AGENT_IMAGE,
      ...(options.serviceCaCert ? { serviceCaCert: options.serviceCaCert } : {}),
      imageTokenTtlMs: options.imageTokenTtlMs ?? DEFAULT_IMAGE_TOKEN_TTL_MS,
      imageUrlTtlMs,
      events,
    },
    renders: new DiscoveryRenderCache(),
    eventLimiter: new EventPostLimiter(events, () => now().getTime()),
    logger,
    now,
    onInfraEnvChange: (id) => {
      urlTokens.forget(id);
      options.onInfraEnvChange?.(id);
    },
  };

  const router = express.Router();
  router.use(
    express.json({
      limit: options.bodyLimitBytes ?? 2 * 1024 * 1024,
      type: ['application/json', 'application/*+json'],
    }),
  );
  router.use(inputGuard);
  registerInfraEnvRoutes(router, ctx);
  registerImageUrlTokenRoutes(router, ctx);
  registerDownloadRoutes(router, ctx);
  registerHostRoutes(router, ctx);
  registerInstructionRoutes(router, ctx);
  registerEventRoutes(router, ctx);
  registerVersionRoutes(router, ctx);
  router.use(methodGuard(router)); // after every route: 405 with Allow, or go-openapi's 404
  router.use(assistedErrorHandler(logger));

  const intervalMs = options.monitorIntervalMs ?? Math.max(100, Math.min(options.hostMaxDisconnectionMs / 3, 30_000));
  const monitor =
    options.runMonitor === false
      ? undefined
      : startMonitor({ repo, logger, intervalMs, maxDisconnectionMs: options.hostMaxDisconnectionMs, now: ctx.now });
  const retention =
    options.runMonitor === false
      ? undefined
      : startEventRetention({
          repo,
          logger,
          settings: events,
          now: ctx.now,
          ...(options.eventRetentionIntervalMs ? { intervalMs: options.eventRetentionIntervalMs } : {}),
        });

  const needKeys = (): LocalKeys => {
    if (!keys) throw new Error('tokens exist only with AUTH_TYPE=local');
    return keys;
  };
  return {
    router,
    databaseHealth: () => ({
      engine: db.embedded ? 'embedded' : 'external',
      state: db.embedded ? db.embedded.state() : 'connected',
      notices: pgliteNotice ? [pgliteNotice] : [],
    }),
    ignitionSource: createIgnitionSource(ctx),
    urlTokenResolver: createUrlTokenResolver(ctx),
    artifactObserver: createBootEventRecorder(ctx),
    auth: {
      adminToken: () => needKeys().adminToken(),
      infraEnvToken: (id) => needKeys().infraEnvToken(id),
      imageToken: async (id, ttlMs) => {
        const rec = await getInfraEnvOr404(repo, id);
        return issueImageToken(rec.id, rec.imageTokenKey, ttlMs ?? ctx.settings.imageTokenTtlMs);
      },
    },
    async close() {
      await monitor?.stop();
      await retention?.stop();
      await db.close();
    },
  };
}
