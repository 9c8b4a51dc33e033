// Builds the express application for a role: the image side (ISOs, PXE, boot artifacts),
// the assisted API (mounted at API_BASE, src/url-grammar.ts), or both, plus health and metrics.
//
// It wires parts together and records per-request metrics and access logs (with
// credentials redacted from paths); it holds no business rules. With the image side, the
// request listener it returns first offers each request to the hot path-style ISO route
// (hot-iso-route.ts: a BMC's range storm skips express's router walk), then to express.
//
// Room rule (src/http/face/, this file is its entry): bootsmith's image face: the URL shapes
// (src/url-grammar.ts), routes, the hot route, artifact responses, the request cap, request
// parameters and credentials, error answers, the plain-port policy. It imports the other two
// rooms (src/http/representation/, src/http/transport/) and the product below it; neither room
// imports it.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { ArtifactService } from '../../artifacts/artifact-service.js';
import type { ImageStore } from '../../images/catalog/image-store.js';
import type { UrlTokenResolver } from '../../image-ports/url-token-resolver.js';
import type { Metrics } from '../../metrics.js';
import type { ArtifactObserver } from '../../image-ports/boot-event-observer.js';
import type { TokenReadObserver } from '../../image-ports/token-read-observer.js';
import { answerImageError, imageErrorHandler } from './error-mapping.js';
import { hotIsoRoute } from './hot-iso-route.js';
import { redactedRequestTarget, redactUrl } from '../../redact.js';
import { bootArtifactRoutes } from './routes/boot-artifacts.js';
import { discoveryImageRoutes } from './routes/discovery-image.js';
import { type DatabaseHealth, type TlsHealth, healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { consoleRoutes } from '../../console/console-router.js';
import { pxeInitrdRoutes } from './routes/pxe-initrd.js';
import { DEFAULT_REQUEST_CAP, RequestCap, type RequestCapSettings } from './request-cap.js';
import type { BodyKernelIo } from '../representation/serve-representation.js';
import { API_BASE, EXTENSION_API_PREFIX, URL_SHAPES, cappedPathPrefixes } from '../../url-grammar.js';

/** Where the artifact routes live (the capped URL shapes): the request cap applies here and nowhere else. */
export const ARTIFACT_PATH_PREFIXES = cappedPathPrefixes(URL_SHAPES);

export interface AppParts {
  logger: Logger;
  metrics: Metrics;
  imageStore?: ImageStore;
  /** Present when this process serves the image side. */
  artifacts?: ArtifactService;
  /** Present when this process serves the assisted API. */
  coreRouter?: Router;
  /** The core's storage, for /health (present with the assisted API). */
  databaseHealth?: DatabaseHealth;
  /** Opaque `/bytoken/` URL tokens (the in-process core); absent in remote mode. */
  urlTokens?: UrlTokenResolver;
  /** Boot events (src/image-ports/boot-event-observer.ts), already wrapped for dedupe. */
  observer?: ArtifactObserver;
  /** Reads of ISOs opened by short tokens (src/image-ports/token-read-observer.ts): BMC boot jobs. */
  tokenReads?: TokenReadObserver;
  /** Present when this process serves the BMC extension API (mounted at EXTENSION_API_PREFIX). */
  extensionRouter?: Router;
  /** The artifact slots (MAX_CONCURRENT_REQUESTS and its per-address share, minimum progress); defaults when absent. */
  requestCap?: RequestCapSettings;
  /** The serving certificate, for /health (present with native TLS). */
  tlsHealth?: TlsHealth;
  /** True once a graceful drain started: /health answers 503 (src/http/transport/drain.ts). */
  draining?: () => boolean;
  /** AUTH_TYPE, for the web console's sign-in page (`none` when absent). */
  authType?: 'none' | 'local';
  /** Start-up warnings (src/startup/reachability.ts): in /health and the console's banner. */
  warnings?: readonly string[];
  /** The kernel I/O addon when artifact bodies may use it (HTTP_BODY_IO); absent: every read on libuv's pool. */
  kernelIo?: BodyKernelIo;
}

export function createApp(parts: AppParts): RequestListener {
  const app = express();
  const logInternal = (err: unknown, req: IncomingMessage): void =>
    parts.logger.error({ err, method: req.method, path: redactedRequestTarget(req) }, 'request failed');
  app.disable('x-powered-by');
  app.disable('etag'); // the range layer sets strong ETags itself; JSON answers need none
  app.set('query parser', 'simple');

  const recordRequest = requestRecorder(parts);
  app.use((req, res, next) => {
    recordRequest(req, res, () => routeLabel(req.route?.path, req.baseUrl));
    next();
  });

  const cap = parts.artifacts ? new RequestCap(parts.requestCap ?? DEFAULT_REQUEST_CAP, parts.metrics) : undefined;
  const warnings = parts.warnings ?? [];
  app.use(
    healthRoutes(
      parts.imageStore,
      parts.databaseHealth,
      parts.draining,
      parts.tlsHealth,
      cap && (() => cap.status()),
      warnings,
    ),
  );
  app.use(metricsRoutes(parts.metrics));
  if (parts.coreRouter) app.use(API_BASE, parts.coreRouter);
  if (parts.extensionRouter) app.use(EXTENSION_API_PREFIX, parts.extensionRouter);
  if (parts.coreRouter) app.use(consoleRoutes({ authType: parts.authType ?? 'none', warnings })); // the web console needs the API beside it
  let hotRoute: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  if (parts.artifacts && cap) {
    const context = {
      artifacts: parts.artifacts,
      metrics: parts.metrics,
      logger: parts.logger,
      urlTokens: parts.urlTokens,
      observer: parts.observer,
      tokenReads: parts.tokenReads,
      kernelIo: parts.kernelIo,
    };
    app.use(ARTIFACT_PATH_PREFIXES, cap.middleware);
    app.use(discoveryImageRoutes(context), pxeInitrdRoutes(context), bootArtifactRoutes(context));
    hotRoute = hotIsoRoute(context, cap, {
      onRequest: (req, res, route) => recordRequest(req, res, () => route),
      onError: (req, res, err) => answerImageError(req, res, err, logInternal),
    });
  }
  app.use((req, res) => {
    res.status(404).json({ code: 404, message: `no route for ${req.method} ${redactUrl(req.path)}` });
  });
  app.use(imageErrorHandler(logInternal));
  if (hotRoute === undefined) return app;
  const hot = hotRoute;
  return (req, res) => {
    if (!hot(req, res)) app(req, res);
  };
}

/** Counts every answered request by route and status, and writes the access line at debug level. */
function requestRecorder(
  parts: Pick<AppParts, 'logger' | 'metrics'>,
): (req: IncomingMessage, res: ServerResponse, route: () => string) => void {
  return (req, res, route) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      parts.metrics.requests.inc({ route: route(), method: req.method ?? '', status: String(res.statusCode) });
      // the access line's fields (a redacted path) cost per request: only build them when logged
      if (!parts.logger.isLevelEnabled('debug')) return;
      parts.logger.debug(
        {
          method: req.method,
          path: redactedRequestTarget(req),
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
  };
}

function routeLabel(routePath: unknown, baseUrl: string): string {
  if (typeof routePath === 'string') return baseUrl + routePath;
  if (Array.isArray(routePath)) return baseUrl + routePath.join('|');
  return 'unmatched';
}
