// Builds the express application of one process from what its wings hand it (src/assembly/):
// health and metrics, the wings' routers (the assisted API at API_BASE, src/url-grammar.ts, the BMC
// extension API, the web console), and the image face (ISOs, PXE, boot artifacts) when the
// process serves the image side.
//
// It wires parts together and records per-request metrics and access logs (with
// credentials redacted from paths); it holds no business rules and knows no role. With the image
// face, the request listener it returns first offers each request to the hot path-style ISO route
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
import type { UrlTokenResolver } from '../../image-ports/url-token-resolver.js';
import type { Metrics } from '../../metrics.js';
import { type MetricCell, metricCell } from '../../metric-cell.js';
import type { ArtifactObserver } from '../../image-ports/boot-event-observer.js';
import type { TokenReadObserver } from '../../image-ports/token-read-observer.js';
import { answerImageError, imageErrorHandler } from './error-mapping.js';
import { hotIsoRoute } from './hot-iso-route.js';
import { redactedRequestTarget, redactUrl } from '../../redact.js';
import { bootArtifactRoutes } from './routes/boot-artifacts.js';
import { discoveryImageRoutes } from './routes/discovery-image.js';
import { type HealthPart, healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { pxeInitrdRoutes } from './routes/pxe-initrd.js';
import type { RequestCap } from './request-cap.js';
import type { BodyKernelIo } from '../representation/serve-representation.js';
import { URL_SHAPES, cappedPathPrefixes } from '../../url-grammar.js';

/** Where the artifact routes live (the capped URL shapes): the request cap applies here and nowhere else. */
export const ARTIFACT_PATH_PREFIXES = cappedPathPrefixes(URL_SHAPES);

export interface AppParts {
  logger: Logger;
  metrics: Metrics;
  /** /health's parts (./routes/health.ts), in order: the wings' and the listeners'. */
  health?: readonly HealthPart[];
  /** True once a graceful drain started: /health answers 503 (src/http/transport/drain.ts). */
  draining?: () => boolean;
  /** The wings' routers, mounted in this order, before the image face. */
  routers?: readonly MountedRouter[];
  /** Present when this process serves the image side. */
  imageFace?: ImageFace;
}

/** A wing's router and where it is mounted (undefined: at the root). */
export interface MountedRouter {
  path: string | undefined;
  router: Router;
}

/** The image face's parts: the artifacts, their request cap, and the image ports the routes call. */
export interface ImageFace {
  artifacts: ArtifactService;
  /** The artifact slots (MAX_CONCURRENT_REQUESTS, its per-address share, minimum progress). */
  cap: RequestCap;
  /** Opaque `/bytoken/` URL tokens (src/image-ports/url-token-resolver.ts). */
  urlTokens: UrlTokenResolver | undefined;
  /** Boot events (src/image-ports/boot-event-observer.ts), already wrapped for dedupe. */
  observer: ArtifactObserver | undefined;
  /** Reads of ISOs opened by short tokens (src/image-ports/token-read-observer.ts): BMC boot jobs. */
  tokenReads: TokenReadObserver | undefined;
  /** The kernel I/O addon when artifact bodies may use it (HTTP_BODY_IO); undefined: every read on libuv's pool. */
  kernelIo?: BodyKernelIo | undefined;
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

  app.use(healthRoutes(parts.health, parts.draining));
  app.use(metricsRoutes(parts.metrics));
  for (const { path, router } of parts.routers ?? []) {
    if (path === undefined) app.use(router);
    else app.use(path, router);
  }
  let hotRoute: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  if (parts.imageFace) {
    const face = parts.imageFace;
    const context = {
      artifacts: face.artifacts,
      metrics: parts.metrics,
      logger: parts.logger,
      urlTokens: face.urlTokens,
      observer: face.observer,
      tokenReads: face.tokenReads,
      kernelIo: face.kernelIo,
    };
    app.use(ARTIFACT_PATH_PREFIXES, face.cap.middleware);
    app.use(discoveryImageRoutes(context), pxeInitrdRoutes(context), bootArtifactRoutes(context));
    hotRoute = hotIsoRoute(context, face.cap, {
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
  const count = requestCounter(parts.metrics);
  return (req, res, route) => {
    // the access line's fields (a clock, a redacted path) cost per request: only made when logged
    const started = parts.logger.isLevelEnabled('debug') ? process.hrtime.bigint() : undefined;
    res.on('finish', () => {
      count(route(), req.method ?? '', res.statusCode);
      if (started === undefined || !parts.logger.isLevelEnabled('debug')) return;
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

/**
 * Counts a request in bootsmith_http_requests_total through a cell of its labels (src/metric-cell.ts),
 * made once per (route, method, status). The labels are bounded: routes are the app's own
 * patterns, methods those Node's parser accepts.
 */
function requestCounter(metrics: AppParts['metrics']): (route: string, method: string, status: number) => void {
  const cells = new Map<string, Map<string, Map<number, MetricCell>>>();
  return (route, method, status) => {
    let byMethod = cells.get(route);
    if (byMethod === undefined) cells.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let cell = byStatus.get(status);
    if (cell === undefined) {
      cell = metricCell(metrics.requests, { route, method, status: String(status) });
      byStatus.set(status, cell);
    }
    cell.add();
  };
}

function routeLabel(routePath: unknown, baseUrl: string): string {
  if (typeof routePath === 'string') return baseUrl + routePath;
  if (Array.isArray(routePath)) return baseUrl + routePath.join('|');
  return 'unmatched';
}
