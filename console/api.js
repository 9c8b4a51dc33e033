// The console's API client: same origin, the admin token from session storage as
// `Authorization: Bearer` (never in a URL), a timeout on every call, and typed errors carrying the
// API's message and the form field it names. Does NOT: render anything or keep the token anywhere
// but session storage.

export const API = '/api/assisted-install/v2';
const TOKEN_KEY = 'bootsmith-admin-token';
/** Every call gives up after this long; the API answers in milliseconds when it is well. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** Field names of the InfraEnv API that a message may name (longest first, so `name` matches last). */
export const INFRA_ENV_FIELDS = [
  'additional_trust_bundle',
  'ignition_config_override',
  'static_network_config',
  'additional_ntp_sources',
  'ssh_authorized_key',
  'openshift_version',
  'cpu_architecture',
  'kernel_arguments',
  'pull_secret',
  'image_type',
  'proxy',
  'name',
];

export class ApiError extends Error {
  constructor(status, message, field) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.field = field;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** Other words the API's messages use for a field (src/core/infraenv/ validators). */
const FIELD_ALIASES = {
  additional_ntp_sources: ['NTP source'],
  static_network_config: ['network_yaml', 'mac_interface_map'],
  ssh_authorized_key: ['SSH key', 'SSH public key'],
  additional_trust_bundle: ['trust bundle'],
};

/** Which API field an error message names: `pull_secret …`, `pull secret …`, `kernel_arguments[0].value …`. */
export function fieldOf(message) {
  const text = String(message);
  for (const field of INFRA_ENV_FIELDS) {
    const words = [field, field.replaceAll('_', ' '), ...(FIELD_ALIASES[field] ?? [])];
    const pattern = new RegExp(`(^|[^a-z_])(${words.join('|')})($|[^a-z_])`, 'i');
    if (pattern.test(text)) return field;
  }
  return undefined;
}

/** The message of an error body: upstream's `{reason}` (400/404/409…) or `{message}` (401/403/422). */
function messageOf(body, status) {
  if (body && typeof body === 'object') {
    if (typeof body.reason === 'string') return body.reason;
    if (typeof body.message === 'string') return body.message;
  }
  return `the service answered ${status}`;
}

/**
 * Calls the API. `path` is below /api/assisted-install/v2 (or absolute when it starts with
 * `/` outside it, like `/health`). Returns `{status, headers, body}` where body is JSON, text
 * or a Blob (`as: 'blob'`). Throws ApiError for non-2xx answers and network failures.
 */
/**
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, as?: 'json' | 'text' | 'blob', query?: Record<string, unknown> }} [options]
 * @returns {Promise<{ status: number, headers: Headers, body: any }>}
 */
export async function call(method, path, { body, as = 'json', query } = {}) {
  const url = new URL(path.startsWith('/') ? path : `${API}/${path}`, window.location.origin);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === '' || value === null) continue;
    url.searchParams.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  /** @type {Record<string, string>} */
  const headers = {};
  if (token()) headers.Authorization = `Bearer ${token()}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    const reason = err && err.name === 'TimeoutError' ? 'timed out' : 'failed';
    throw new ApiError(0, `the request to the service ${reason}`);
  }
  if (!res.ok && !(path === '/health' && res.status === 503)) {
    let parsed;
    try {
      parsed = await res.json();
    } catch {
      parsed = undefined;
    }
    const message = messageOf(parsed, res.status);
    if (res.status === 401) window.dispatchEvent(new CustomEvent('bootsmith:unauthorized', { detail: message }));
    throw new ApiError(res.status, message, fieldOf(message));
  }
  let parsedBody;
  if (res.status === 204) parsedBody = undefined;
  else if (as === 'blob') parsedBody = await res.blob();
  else if (as === 'text') parsedBody = await res.text();
  else parsedBody = await res.json();
  return { status: res.status, headers: res.headers, body: parsedBody };
}

export const get = async (path, query) => (await call('GET', path, { query })).body;
