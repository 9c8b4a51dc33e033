// The URL grammar: every URL shape bootsmith hands to a booting machine or gates on its own
// (ISOs, PXE and boot artifacts, the InfraEnv files download that carries the iPXE script, the
// liveness probe, the PXE front door's answers), one row each, and the one spelling of the assisted API's prefix.
//
// Does: state per shape its path (literal segments and `{parameters}`), which parameter carries
// a credential (and of which kind), whether MAX_CONCURRENT_REQUESTS caps it, whether the
// plain-HTTP port serves it (HTTP_ROUTES=ipxe), and whether the hot route answers it before
// express; and derive from the table every form the rest of the code needs: express patterns and
// metric route labels, the hot-path matcher, the request cap's path prefixes, the plain port's
// path patterns, the path segments whose next segment the redaction hides, and URL paths filled
// with values. Each derivation takes the table as a parameter (the default is URL_SHAPES), so a
// new row is one line here and a test can add one.
// Does NOT: serve, authorize or validate identifiers (src/http/face/ does), or know hosts and
// base URLs (src/core/urls.ts builds whole URLs). Imports nothing (a leaf: src/redact.ts, the
// image face and the core all read it).
// Next: src/http/face/hot-iso-route.ts and src/http/face/routes/ (serving), src/core/urls.ts
// (building), src/redact.ts (logging).

/** Where the core's router is mounted: the assisted-service API, spelled once. */
export const API_BASE = '/api/assisted-install';
/** The assisted API's v2 prefix, the root of every API path a client calls. */
export const API_PREFIX = `${API_BASE}/v2`;
/**
 * bootsmith's own extension of the API (BMC records and jobs: src/bmc/api/), apart from upstream's
 * namespace. No URL under it carries a credential or an artifact, so none is a row of the table.
 */
export const EXTENSION_API_PREFIX = '/api/bootsmith/v1';

/** The credential a path parameter carries: an image token (JWT or short opaque token) or an API key. */
export type PathCredentialKind = 'image-token' | 'api-key';

/** The query rule of a shape the plain-HTTP port serves for one file only (the iPXE script). */
export interface PlainQueryRule {
  /** The only query names allowed; any other name refuses the request. */
  readonly names: readonly string[];
  /** This name must appear exactly once, with exactly this value. */
  readonly once: { readonly name: string; readonly value: string };
}

export interface UrlShape {
  /** A stable name, used in tests and messages. */
  readonly name: string;
  /** `/literal/{parameter}/…`: each segment is a literal or a whole `{parameter}`. */
  readonly path: string;
  /** The parameter that carries a credential (redacted from logs), and what it is. */
  readonly credential?: { readonly param: string; readonly kind: PathCredentialKind };
  /** Counted against MAX_CONCURRENT_REQUESTS (the artifact slots of src/http/face/request-cap.ts). */
  readonly capped: boolean;
  /** Served by the plain-HTTP port in HTTP_ROUTES=ipxe mode: with any query, or under a query rule. */
  readonly plainHttp: false | 'any-query' | PlainQueryRule;
  /**
   * Answered by the hot route (src/http/face/hot-iso-route.ts) before express: a discovery ISO by
   * path (no query string), parameters `{id}` or the credential's, then version, arch, filename.
   */
  readonly hot: boolean;
}

export const URL_SHAPE = {
  isoById: {
    name: 'iso-by-id',
    path: '/byid/{id}/{version}/{arch}/{filename}',
    capped: true,
    plainHttp: false,
    hot: true,
  },
  isoByToken: {
    name: 'iso-by-token',
    path: '/bytoken/{token}/{version}/{arch}/{filename}',
    credential: { param: 'token', kind: 'image-token' },
    capped: true,
    plainHttp: false,
    hot: true,
  },
  isoByApiKey: {
    name: 'iso-by-api-key',
    path: '/byapikey/{token}/{version}/{arch}/{filename}',
    credential: { param: 'token', kind: 'api-key' },
    capped: true,
    plainHttp: false,
    hot: true,
  },
  isoByQuery: { name: 'iso-by-query', path: '/images/{id}', capped: true, plainHttp: false, hot: false },
  pxeInitrd: { name: 'pxe-initrd', path: '/images/{id}/pxe-initrd', capped: true, plainHttp: 'any-query', hot: false },
  s390xInitrdAddrsize: {
    name: 's390x-initrd-addrsize',
    path: '/images/{id}/s390x-initrd-addrsize',
    capped: true,
    plainHttp: false,
    hot: false,
  },
  bootArtifact: {
    name: 'boot-artifact',
    path: '/boot-artifacts/{kind}',
    capped: true,
    plainHttp: 'any-query',
    hot: false,
  },
  infraEnvFiles: {
    name: 'infra-env-files',
    path: `${API_PREFIX}/infra-envs/{infra_env_id}/downloads/files`,
    capped: false,
    plainHttp: {
      names: ['file_name', 'ipxe_script_type', 'mac', 'api_key', 'image_token'],
      once: { name: 'file_name', value: 'ipxe-script' },
    },
    hot: false,
  },
  liveness: { name: 'liveness', path: '/live', capped: false, plainHttp: 'any-query', hot: false },
  // The PXE front door (src/front-door/): what every site's DHCP sends iPXE to, the per-host
  // answers it chains to, GRUB's config and pixiecore's API (it asks <prefix>/v1/boot/<mac>).
  frontDoorBoot: { name: 'front-door-boot', path: '/boot.ipxe', capped: false, plainHttp: 'any-query', hot: false },
  frontDoorHost: { name: 'front-door-host', path: '/pxe/host.ipxe', capped: false, plainHttp: 'any-query', hot: false },
  frontDoorGrub: { name: 'front-door-grub', path: '/pxe/grub.cfg', capped: false, plainHttp: 'any-query', hot: false },
  pixiecoreBoot: {
    name: 'pixiecore-boot',
    path: '/pxe/v1/boot/{mac}',
    capped: false,
    plainHttp: 'any-query',
    hot: false,
  },
} as const satisfies Record<string, UrlShape>;

/** Every shape, in table order. */
export const URL_SHAPES: readonly UrlShape[] = Object.values(URL_SHAPE);

/**
 * How a parameter may be spelled where a gate must be strict (the plain-HTTP port): no dots, no
 * percent-escapes, no slashes, so no spelling reaches another route. The routes validate further.
 */
const STRICT_PARAMETER: Readonly<Record<string, string>> = { kind: '[a-z0-9-]+', mac: '[0-9A-Fa-f:-]+' };
/** Any other parameter on the strict gate: an InfraEnv id (a UUID) or anything shaped like one. */
const STRICT_PARAMETER_DEFAULT = '[A-Za-z0-9-]+';
/** A hot-path parameter: the plain form only (no percent-escapes, no query); others go to express. */
const HOT_PARAMETER = '[^/?%]+';

export type Segment = { readonly literal: string } | { readonly param: string };

/** A literal segment inside a regular expression (a file name's dot is a dot). */
function escapeLiteral(literal: string): string {
  return literal.replace(/\./g, '\\.');
}

/** The segments of a shape's path; throws on a malformed row (a programming error). */
export function segmentsOf(shape: UrlShape): Segment[] {
  if (!shape.path.startsWith('/')) throw new Error(`URL shape ${shape.name}: path must start with /`);
  return shape.path
    .slice(1)
    .split('/')
    .map((part) => {
      const param = /^\{([a-z_]+)\}$/.exec(part);
      if (param) return { param: param[1]! };
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+)?$/.test(part))
        throw new Error(`URL shape ${shape.name}: bad segment ${JSON.stringify(part)}`);
      return { literal: part };
    });
}

/** The express route pattern (`/byid/:id/…`), which is also the request metrics' route label. */
export function expressPath(shape: UrlShape): string {
  return `/${segmentsOf(shape)
    .map((s) => ('literal' in s ? s.literal : `:${s.param}`))
    .join('/')}`;
}

/** The express pattern of an API shape relative to the core router's mount (API_BASE). */
export function apiRoutePath(shape: UrlShape): string {
  const full = expressPath(shape);
  if (!full.startsWith(`${API_BASE}/`)) throw new Error(`URL shape ${shape.name} is not under ${API_BASE}`);
  return full.slice(API_BASE.length);
}

/** The shape's path with every parameter filled in (percent-encoded). */
export function fillPath(shape: UrlShape, values: Readonly<Record<string, string>>): string {
  return `/${segmentsOf(shape)
    .map((s) => {
      if ('literal' in s) return s.literal;
      const value = values[s.param];
      if (value === undefined) throw new Error(`URL shape ${shape.name} needs ${s.param}`);
      return encodeURIComponent(value);
    })
    .join('/')}`;
}

/** The path prefixes the request cap is mounted on: the first segment of every capped shape. */
export function cappedPathPrefixes(shapes: readonly UrlShape[] = URL_SHAPES): string[] {
  const prefixes = new Set<string>();
  for (const shape of shapes.filter((s) => s.capped)) {
    const first = segmentsOf(shape)[0];
    if (!first || !('literal' in first)) throw new Error(`capped URL shape ${shape.name} must start with a literal`);
    prefixes.add(`/${first.literal}`);
  }
  return [...prefixes];
}

/** The path segments after which the next segment is a credential (redacted, compared lower-case). */
export function credentialRouteSegments(shapes: readonly UrlShape[] = URL_SHAPES): Set<string> {
  const segments = new Set<string>();
  for (const shape of shapes) {
    if (!shape.credential) continue;
    const parts = segmentsOf(shape);
    const at = parts.findIndex((s) => 'param' in s && s.param === shape.credential!.param);
    const before = parts[at - 1];
    if (at < 0 || !before || !('literal' in before))
      throw new Error(
        `URL shape ${shape.name}: the credential {${shape.credential.param}} must follow a literal segment`,
      );
    segments.add(before.literal.toLowerCase());
  }
  return segments;
}

/** A hot-path match: the shape, its parameters by name, and its route label. */
export interface HotMatch {
  readonly shape: UrlShape;
  readonly params: Readonly<Record<string, string>>;
  readonly label: string;
}

/**
 * The hot route's matcher: a request target of a `hot` shape in its plain form (literal segments
 * as spelled, no query string, no percent-escapes, no trailing slash) → the match; anything else
 * → undefined. One map lookup on the first segment, then one regular expression.
 */
export function hotRouteMatcher(shapes: readonly UrlShape[] = URL_SHAPES): (target: string) => HotMatch | undefined {
  const byFirst = new Map<string, { shape: UrlShape; pattern: RegExp; names: string[]; label: string }>();
  for (const shape of shapes.filter((s) => s.hot)) {
    const parts = segmentsOf(shape);
    const first = parts[0];
    if (!first || !('literal' in first)) throw new Error(`hot URL shape ${shape.name} must start with a literal`);
    if (byFirst.has(first.literal)) throw new Error(`hot URL shapes share the first segment ${first.literal}`);
    const names = parts.flatMap((s) => ('param' in s ? [s.param] : []));
    const source = parts.map((s) => ('literal' in s ? escapeLiteral(s.literal) : `(${HOT_PARAMETER})`)).join('\\/');
    byFirst.set(first.literal, { shape, pattern: new RegExp(`^\\/${source}$`), names, label: expressPath(shape) });
  }
  return (target) => {
    const end = target.indexOf('/', 1);
    if (end < 0) return undefined;
    const entry = byFirst.get(target.slice(1, end));
    if (entry === undefined) return undefined;
    const match = entry.pattern.exec(target);
    if (match === null) return undefined;
    const params: Record<string, string> = {};
    entry.names.forEach((name, i) => (params[name] = match[i + 1]!));
    return { shape: entry.shape, params, label: entry.label };
  };
}

/** What the plain-HTTP port serves in HTTP_ROUTES=ipxe mode: a strict path pattern and the query rule. */
export interface PlainHttpShape {
  readonly shape: UrlShape;
  /** Matched against the raw path (before `?`): literals as spelled, parameters in their strict spelling. */
  readonly pattern: RegExp;
  readonly query: 'any-query' | PlainQueryRule;
}

/** The plain port's shapes, each with its strict path pattern. */
export function plainHttpShapes(shapes: readonly UrlShape[] = URL_SHAPES): PlainHttpShape[] {
  return shapes.flatMap((shape) => {
    if (shape.plainHttp === false) return [];
    const source = segmentsOf(shape)
      .map((s) => ('literal' in s ? escapeLiteral(s.literal) : (STRICT_PARAMETER[s.param] ?? STRICT_PARAMETER_DEFAULT)))
      .join('\\/');
    return [{ shape, pattern: new RegExp(`^\\/${source}$`), query: shape.plainHttp }];
  });
}
