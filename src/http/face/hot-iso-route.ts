// The hot path of a BMC's range storm: GET/HEAD of a path-style ISO URL
// (`/byid|bytoken|byapikey/{…}/{version}/{arch}/{full|minimal}.iso`: the `hot` shapes of
// src/url-grammar.ts), answered straight from the Node request without express's router walk.
//
// Does: match the plain form of those URLs (no query string, no percent-escapes, lower-case
// prefix, exactly five segments) with the grammar's matcher (one map lookup, one regular
// expression), then do what the express stack
// does for them, through the same functions: the request cap, the credential, the target, the
// boot-event report, serveRepresentation, the image side's error response and request metrics.
// Does NOT: decide anything on its own. Every other request, and every variant of these URLs
// this matcher does not take (`?api_key=`, escapes, a trailing slash, another method), goes to
// express, whose routes for the same paths stay in src/http/face/routes/discovery-image.ts and answer
// exactly as this does (the route tests run over both).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type UrlShape, URL_SHAPES, hotRouteMatcher } from '../../url-grammar.js';
import type { ImageRouteContext } from './artifact-response.js';
import type { RequestCap } from './request-cap.js';
import { credentialFromHeaders } from './request-credential.js';
import { byIdTarget, credentialPathTarget, serveDiscoveryIso } from './routes/discovery-image.js';

export interface HotRouteHooks {
  /** Called once per answered request with its route label (request metrics, access log). */
  onRequest(req: IncomingMessage, res: ServerResponse, route: string): void;
  /** Answers a failure the way the express error handler does. */
  onError(req: IncomingMessage, res: ServerResponse, err: unknown): void;
}

/**
 * Returns a function that answers `req` and returns true when it is a hot path-style ISO
 * request (a `hot` shape of `shapes`, src/url-grammar.ts), or returns false (having done
 * nothing) for express to handle.
 */
export function hotIsoRoute(
  context: ImageRouteContext,
  cap: RequestCap,
  hooks: HotRouteHooks,
  shapes: readonly UrlShape[] = URL_SHAPES,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const match = hotRouteMatcher(shapes);
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const hot = match(req.url ?? '');
    if (hot === undefined) return false;
    hooks.onRequest(req, res, hot.label);
    const refused = cap.admit(req, res);
    if (refused !== undefined) {
      hooks.onError(req, res, refused);
      return true;
    }
    serveHot(context, req, res, hot.shape, hot.params).catch((err: unknown) => hooks.onError(req, res, err));
    return true;
  };
}

async function serveHot(
  context: ImageRouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  shape: UrlShape,
  params: Readonly<Record<string, string>>,
): Promise<void> {
  const { version, arch, filename } = params as Record<'version' | 'arch' | 'filename', string>;
  const target = shape.credential
    ? await credentialPathTarget(
        context,
        shape.credential.kind,
        params[shape.credential.param]!,
        version,
        arch,
        filename,
      )
    : byIdTarget(params.id!, version, arch, filename, credentialFromHeaders(req.headers));
  await serveDiscoveryIso(context, req, res, target);
}
