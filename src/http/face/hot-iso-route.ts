// The hot path of a BMC's range storm: GET/HEAD of a path-style ISO URL
// (`/byid|bytoken|byapikey/{…}/{version}/{arch}/{full|minimal}.iso`), answered straight from the
// Node request without express's router walk.
//
// Does: match the plain form of those URLs (no query string, no percent-escapes, lower-case
// prefix, exactly five segments) with one regular expression, then do what the express stack
// does for them, through the same functions: the request cap, the credential, the target, the
// boot-event report, serveRepresentation, the image side's error response and request metrics.
// Does NOT: decide anything on its own. Every other request, and every variant of these URLs
// this matcher does not take (`?api_key=`, escapes, a trailing slash, another method), goes to
// express, whose routes for the same paths stay in src/http/face/routes/discovery-image.ts and answer
// exactly as this does (the route tests run over both).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ImageRouteContext } from './artifact-response.js';
import type { RequestCap } from './request-cap.js';
import { credentialFromHeaders } from './request-credential.js';
import { byIdTarget, credentialPathTarget, serveDiscoveryIso } from './routes/discovery-image.js';

const PATH_STYLE_ISO = /^\/(byid|bytoken|byapikey)\/([^/?%]+)\/([^/?%]+)\/([^/?%]+)\/([^/?%]+)$/;

/** The metric route label of each prefix: express's own for the same route. */
const ROUTE_LABELS = {
  byid: '/byid/:id/:version/:arch/:filename',
  bytoken: '/bytoken/:token/:version/:arch/:filename',
  byapikey: '/byapikey/:token/:version/:arch/:filename',
} as const;

export interface HotRouteHooks {
  /** Called once per answered request with its route label (request metrics, access log). */
  onRequest(req: IncomingMessage, res: ServerResponse, route: string): void;
  /** Answers a failure the way the express error handler does. */
  onError(req: IncomingMessage, res: ServerResponse, err: unknown): void;
}

/**
 * Returns a function that answers `req` and returns true when it is a hot path-style ISO
 * request, or returns false (having done nothing) for express to handle.
 */
export function hotIsoRoute(
  context: ImageRouteContext,
  cap: RequestCap,
  hooks: HotRouteHooks,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const match = PATH_STYLE_ISO.exec(req.url ?? '');
    if (match === null) return false;
    const [, prefix, first, version, arch, filename] = match as unknown as [
      string,
      keyof typeof ROUTE_LABELS,
      string,
      string,
      string,
      string,
    ];
    hooks.onRequest(req, res, ROUTE_LABELS[prefix]);
    const refused = cap.admit(req, res);
    if (refused !== undefined) {
      hooks.onError(req, res, refused);
      return true;
    }
    serveHot(context, req, res, prefix, first, version, arch, filename).catch((err: unknown) =>
      hooks.onError(req, res, err),
    );
    return true;
  };
}

async function serveHot(
  context: ImageRouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  prefix: keyof typeof ROUTE_LABELS,
  first: string,
  version: string,
  arch: string,
  filename: string,
): Promise<void> {
  const target =
    prefix === 'byid'
      ? byIdTarget(first, version, arch, filename, credentialFromHeaders(req.headers))
      : await credentialPathTarget(context, prefix, first, version, arch, filename);
  await serveDiscoveryIso(context, req, res, target);
}
