// What the plain-HTTP listener (HTTP_LISTEN_PORT, next to HTTPS on LISTEN_PORT) serves.
// Stock iPXE builds cannot speak HTTPS, so by default it serves only what an iPXE boot
// fetches: the InfraEnv's iPXE script (`downloads/files?file_name=ipxe-script`), the PXE
// initrd, `/boot-artifacts/*` (kernel, initrd, rootfs) and `/live`. Everything else gets a
// ForbiddenError naming the HTTPS URL of the same resource. HTTP_ROUTES=all opens every route
// (for older BMCs that cannot mount virtual media over HTTPS).
//
// Does: decide from the raw request target, strictly: GET/HEAD only, exact path shapes (the
// plainHttp rows of src/url-grammar.ts; no dot segments, no percent-encoding in the path), and
// for the script route (its query rule) exactly one
// `file_name=ipxe-script` among known query names, so no spelling reaches another file
// (discovery.ign carries the pull secret) over plain HTTP.
// Does NOT: answer requests (the caller maps the error through src/http/representation/error-response.ts) or
// check credentials (the routes themselves still do).
import { ForbiddenError } from '../../errors.js';
import { type PlainHttpShape, type UrlShape, URL_SHAPES, plainHttpShapes } from '../../url-grammar.js';

export type PlainHttpRoutes = 'ipxe' | 'all';

/** What the plain port serves in `ipxe` mode: the URL shapes of src/url-grammar.ts marked plainHttp. */
const PLAIN_SHAPES = plainHttpShapes(URL_SHAPES);

/** undefined when the plain listener may serve the request, else the error to answer with. */
export function plainHttpRefusal(
  method: string | undefined,
  target: string | undefined,
  routes: PlainHttpRoutes,
  httpsBaseUrl: string,
  shapes: readonly UrlShape[] = URL_SHAPES,
): ForbiddenError | undefined {
  if (routes === 'all') return undefined;
  const raw = target ?? '/';
  const plainShapes = shapes === URL_SHAPES ? PLAIN_SHAPES : plainHttpShapes(shapes);
  if ((method === 'GET' || method === 'HEAD') && isIpxeTarget(raw, plainShapes)) return undefined;
  const httpsUrl = raw.startsWith('/') ? `${httpsBaseUrl.replace(/\/+$/, '')}${raw}` : httpsBaseUrl;
  return new ForbiddenError(
    `this plain-HTTP port serves only what iPXE fetches (iPXE scripts, /boot-artifacts/*, pxe-initrd, /live); use ${httpsUrl}`,
    { httpsBaseUrl },
  );
}

function isIpxeTarget(target: string, plainShapes: readonly PlainHttpShape[]): boolean {
  const q = target.indexOf('?');
  const pathname = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  return plainShapes.some((plain) => plain.pattern.test(pathname) && queryAllowed(query, plain.query));
}

/** Whether a plain shape's query rule admits `query`: strictly, so no spelling reaches another file. */
function queryAllowed(query: string, rule: PlainHttpShape['query']): boolean {
  if (rule === 'any-query') return true;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(query);
  } catch {
    return false;
  }
  let seen = 0;
  for (const [name, value] of params) {
    if (!rule.names.includes(name)) return false;
    if (name === rule.once.name) {
      if (value !== rule.once.value) return false;
      seen++;
    }
  }
  return seen === 1;
}
