// What the plain-HTTP listener (HTTP_LISTEN_PORT, next to HTTPS on LISTEN_PORT) serves.
// Stock iPXE builds cannot speak HTTPS, so by default it serves only what an iPXE boot
// fetches: the InfraEnv's iPXE script (`downloads/files?file_name=ipxe-script`), the PXE
// initrd, `/boot-artifacts/*` (kernel, initrd, rootfs) and `/live`. Everything else gets a
// ForbiddenError naming the HTTPS URL of the same resource. HTTP_ROUTES=all opens every route
// (for older BMCs that cannot mount virtual media over HTTPS).
//
// Does: decide from the raw request target, strictly: GET/HEAD only, exact path shapes (no
// dot segments, no percent-encoding in the path), and for the script route exactly one
// `file_name=ipxe-script` among known query names, so no spelling reaches another file
// (discovery.ign carries the pull secret) over plain HTTP.
// Does NOT: answer requests (the caller maps the error through src/http/representation/error-response.ts) or
// check credentials (the routes themselves still do).
import { ForbiddenError } from '../../errors.js';

export type PlainHttpRoutes = 'ipxe' | 'all';

/** Paths served over plain HTTP in `ipxe` mode, matched against the raw path (before `?`). */
const IPXE_PATHS: readonly RegExp[] = [
  /^\/live$/,
  /^\/boot-artifacts\/[a-z0-9-]+$/,
  /^\/images\/[A-Za-z0-9-]+\/pxe-initrd$/,
];
const IPXE_SCRIPT_PATH = /^\/api\/assisted-install\/v2\/infra-envs\/[A-Za-z0-9-]+\/downloads\/files$/;
/** Query names the iPXE script route reads; any other name on that route is refused. */
const IPXE_SCRIPT_QUERY_NAMES = new Set(['file_name', 'ipxe_script_type', 'mac', 'api_key', 'image_token']);

/** undefined when the plain listener may serve the request, else the error to answer with. */
export function plainHttpRefusal(
  method: string | undefined,
  target: string | undefined,
  routes: PlainHttpRoutes,
  httpsBaseUrl: string,
): ForbiddenError | undefined {
  if (routes === 'all') return undefined;
  const raw = target ?? '/';
  if ((method === 'GET' || method === 'HEAD') && isIpxeTarget(raw)) return undefined;
  const httpsUrl = raw.startsWith('/') ? `${httpsBaseUrl.replace(/\/+$/, '')}${raw}` : httpsBaseUrl;
  return new ForbiddenError(
    `this plain-HTTP port serves only what iPXE fetches (iPXE scripts, /boot-artifacts/*, pxe-initrd, /live); use ${httpsUrl}`,
    { httpsBaseUrl },
  );
}

function isIpxeTarget(target: string): boolean {
  const q = target.indexOf('?');
  const pathname = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  if (IPXE_PATHS.some((re) => re.test(pathname))) return true;
  if (!IPXE_SCRIPT_PATH.test(pathname)) return false;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(query);
  } catch {
    return false;
  }
  let fileNames = 0;
  for (const [name, value] of params) {
    if (!IPXE_SCRIPT_QUERY_NAMES.has(name)) return false;
    if (name === 'file_name') {
      if (value !== 'ipxe-script') return false;
      fileNames++;
    }
  }
  return fileNames === 1;
}
