// The compact assisted core: createCore wires its repository, auth, the host monitor and the
// assisted-service v2 router (mounted by the app at API_BASE, src/url-grammar.ts) on the database
// it is handed (the platform's, src/platform/db/: opened and migrated by the caller).
//
// Exports the Core the app and the image side use: `router`, `ignitionSource`, `close`,
// plus `auth` helpers (tokens for operators and tests). Takes its settings whole (./settings.ts:
// the process's Config as is, and the endpoints resolved at start); applies no defaults to them.
// Does not listen on a port, open or close the database.
import express, { type ErrorRequestHandler, type Request, type Router } from 'express';
import type { Logger } from 'pino';
import type { ImageCatalog } from '../images/catalog/catalog-image.js';
import type { IgnitionSource } from '../image-ports/ignition-source.js';
import { Authorizer } from './auth/authorizer.js';
import { issueImageToken } from './auth/image-tokens.js';
import { LocalKeys } from './auth/local-keys.js';
import { UrlTokens } from './auth/url-tokens.js';
import type { CoreContext } from './context.js';
import { type CoreDomain, coreDomain } from './domain.js';
import { type CoreFrontDoorSource, coreFrontDoorSource } from './front-door-source.js';
import { createRepository } from './db/repository.js';
import { pgliteEraNotice } from '../platform/db/pglite-era.js';
import type { SqlDatabase } from '../platform/db/sql.js';
import { registerDownloadRoutes } from './handlers/downloads.js';
import { registerEventRoutes } from './handlers/events.js';
import { registerHostRoutes } from './handlers/hosts.js';
import { registerImageUrlTokenRoutes } from './handlers/image-url-tokens.js';
import { registerInfraEnvRoutes } from './handlers/infra-envs.js';
import { registerInstructionRoutes } from './handlers/instructions.js';
import { registerVersionRoutes } from './handlers/versions.js';
import { methodGuard } from '../platform/api/method-guard.js';
import { startMonitor } from './host/monitor.js';
import { assistedErrorHandler } from '../platform/api/error-handler.js';
import { authorize } from './http/request.js';
import type { StaticNetworkConfigEntry } from './model.js';
import { inputGuard } from '../platform/api/input-guard.js';
import { DiscoveryRenderCache } from './discovery-ignition/render-cache.js';
import { getInfraEnvOr404 } from './infraenv/service.js';
import { createIgnitionSource, createUrlTokenResolver } from './in-process-ignition-source.js';
import { createBootEventRecorder } from './events/boot-events.js';
import { EventPostLimiter } from './events/post-limits.js';
import { startEventRetention } from './events/retention.js';
import type { UrlTokenResolver } from '../image-ports/url-token-resolver.js';
import type { ArtifactObserver } from '../image-ports/boot-event-observer.js';
import { type CoreEndpoints, type CoreSettings, coreSettingsOf, hostMonitorIntervalMs } from './settings.js';

/** JSON request bodies of the API: room for the largest Ignition override (1 MiB, MAX_OVERRIDE_BYTES) with the rest of an InfraEnv. */
const API_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export interface CoreOptions {
  /** What the operator configured: the process's Config (it extends CoreSettings), handed over as is. */
  settings: CoreSettings;
  /**
   * The database, opened on settings.databaseUrl / dataDir with at least the core's migrations
   * applied (src/platform/db/migrated-database.ts); the caller closes it after the core.
   */
  db: SqlDatabase;
  /** Where hosts and BMCs are sent, resolved once the listener is bound (src/assembly/core-wing.ts). */
  endpoints: CoreEndpoints;
  catalog: ImageCatalog;
  logger: Logger;
  /** Called after a change to an InfraEnv has committed (the image side drops cached artifacts). */
  onInfraEnvChange?: (infraEnvId: string) => void;
  /** The core's clock (tests inject one); undefined = the system clock. */
  now?: () => Date;
  /** false: no host monitor and no event retention (tests that drive time themselves). */
  runMonitor?: boolean;
  /** The host monitor's period; undefined = hostMonitorIntervalMs(settings). Tests shorten it. */
  monitorIntervalMs?: number;
  /** The event retention's period; undefined = EVENTS_PRUNE_INTERVAL_MS. Tests shorten it. */
  eventRetentionIntervalMs?: number;
  /** An InfraEnv update's static network config checked against its BMCs' MACs (src/bmc/); 400 to refuse. */
  checkStaticNetwork?: (infraEnvId: string, entries: StaticNetworkConfigEntry[] | null) => Promise<void>;
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
  /** What another wing may call of the core (./domain.ts; the BMC wing's port, src/bmc/core-port.ts). */
  domain: CoreDomain;
  /** What the PXE front door asks of the core (./front-door-source.ts; src/front-door/core-port.ts). */
  frontDoorSource: CoreFrontDoorSource;
  /**
   * What bootsmith's extension API (src/bmc/api/, mounted beside this router) shares with the
   * core's: the check of an admin credential (AUTH_TYPE=local; anything passes with none) and the
   * error answers.
   */
  extension: {
    authorizeAdmin(req: Request): Promise<void>;
    /** The core's error answers (upstream's shapes, statuses from src/error-status.ts). */
    errorHandler: ErrorRequestHandler;
  };
  /** Stops the host monitor and the event retention; the database stays open for its owner to close. */
  close(): Promise<void>;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const settings = coreSettingsOf(options.settings);
  const db = options.db;
  const pgliteNotice = settings.databaseUrl ? undefined : await pgliteEraNotice(settings.dataDir);
  if (pgliteNotice) options.logger.warn(pgliteNotice);
  const repo = createRepository(db);
  const keys =
    settings.authType === 'local'
      ? await LocalKeys.load(repo, settings.dataDir, {
          adminTokenTtlMs: settings.adminTokenTtlMs,
          sharedDatabase: !!settings.databaseUrl,
        })
      : undefined;
  const logger = options.logger.child({ component: 'core' });
  const now = options.now ?? (() => new Date());
  const urlTokens = new UrlTokens(repo, settings.imageUrlTtlMs, now);
  const authorizer = new Authorizer(settings.authType, keys, repo, urlTokens);
  const ctx: CoreContext = {
    repo,
    catalog: options.catalog,
    authorizer,
    keys,
    urlTokens,
    settings: { ...settings, ...options.endpoints },
    renders: new DiscoveryRenderCache(),
    eventLimiter: new EventPostLimiter(settings.events, () => now().getTime()),
    logger,
    now,
    onInfraEnvChange: (id) => {
      urlTokens.forget(id);
      authorizer.forgetInfraEnv(id);
      options.onInfraEnvChange?.(id);
    },
    ...(options.checkStaticNetwork ? { checkStaticNetwork: options.checkStaticNetwork } : {}),
  };

  const router = express.Router();
  router.use(
    express.json({
      limit: API_BODY_LIMIT_BYTES,
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

  const intervalMs = options.monitorIntervalMs ?? hostMonitorIntervalMs(settings);
  const monitor =
    options.runMonitor === false
      ? undefined
      : startMonitor({ repo, logger, intervalMs, maxDisconnectionMs: settings.hostMaxDisconnectionMs, now: ctx.now });
  const retention =
    options.runMonitor === false
      ? undefined
      : startEventRetention({
          repo,
          logger,
          settings: settings.events,
          now: ctx.now,
          intervalMs: options.eventRetentionIntervalMs,
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
    domain: coreDomain(repo),
    frontDoorSource: coreFrontDoorSource(ctx),
    extension: {
      authorizeAdmin: (req) => authorize(ctx, req, {}),
      errorHandler: assistedErrorHandler(logger),
    },
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
    },
  };
}
