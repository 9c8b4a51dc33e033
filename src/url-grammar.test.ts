// The URL grammar (url-grammar.ts) against every form derived from it, as the code that uses
// them sees them: the express patterns the image routers register, the hot route's matcher and
// route labels, the request cap's prefixes (http/face/app.ts), the plain port's policy, the redaction and
// the core's URL builders; that the API prefix is spelled once; and that a new
// credential-bearing row added to the table is capped, redacted and matched by the hot path with
// nothing else changed (over real loopback HTTP, through the real hot route and request cap).
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Router } from 'express';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArtifactService } from './artifacts/artifact-service.js';
import { filesUrl, isoUrl, pxeUrls } from './core/urls.js';
import { ForbiddenError } from './errors.js';
import { ARTIFACT_PATH_PREFIXES } from './http/face/app.js';
import { hotIsoRoute } from './http/face/hot-iso-route.js';
import { plainHttpRefusal } from './http/face/plain-route-policy.js';
import { RequestCap } from './http/face/request-cap.js';
import { bootArtifactRoutes } from './http/face/routes/boot-artifacts.js';
import { discoveryImageRoutes } from './http/face/routes/discovery-image.js';
import { healthRoutes } from './http/face/routes/health.js';
import type { FrontDoor } from './front-door/front-door.js';
import { frontDoorHostRoutes } from './front-door/front-door-routes.js';
import { pxeInitrdRoutes } from './http/face/routes/pxe-initrd.js';
import type { ImageRouteContext } from './http/face/artifact-response.js';
import { writeErrorResponse } from './http/representation/error-response.js';
import { Metrics } from './metrics.js';
import { PACKAGE_ROOT } from './package-root.js';
import { REDACTED, redactUrl, urlRedactor } from './redact.js';
import {
  API_BASE,
  API_PREFIX,
  URL_SHAPE,
  URL_SHAPES,
  type UrlShape,
  apiRoutePath,
  cappedPathPrefixes,
  credentialRouteSegments,
  expressPath,
  fillPath,
  hotRouteMatcher,
} from './url-grammar.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
/** Not shaped like a token (short, one case of letters): only a credential row hides it. */
const SECRET = 'hunter2-s3cret';
const HTTPS = 'https://boot.example.com:8443';

/** A sample value for each parameter the table uses. */
const SAMPLE: Record<string, string> = {
  id: ID,
  infra_env_id: ID,
  token: SECRET,
  version: '4.17',
  arch: 'x86_64',
  filename: 'full.iso',
  kind: 'kernel',
  mac: '52-54-00-12-34-56',
};

/** A request target for `shape` that its own query rule (if any) admits. */
function sampleTarget(shape: UrlShape): string {
  const p = fillPath(shape, SAMPLE);
  if (shape.plainHttp !== false && shape.plainHttp !== 'any-query')
    return `${p}?${shape.plainHttp.once.name}=${shape.plainHttp.once.value}`;
  return p;
}

/** The route patterns an express router registered, in order. */
function routePaths(router: Router): string[] {
  const stack = (router as unknown as { stack: { route?: { path: string | string[] } }[] }).stack;
  return stack.flatMap((layer) => (layer.route ? [layer.route.path].flat() : []));
}

/** A context whose parts are never called: the routers are only built, not asked. */
const idleContext = {
  artifacts: {} as ArtifactService,
  metrics: new Metrics({ defaultMetrics: false }),
  logger: pino({ level: 'silent' }),
} satisfies ImageRouteContext;

describe('the URL table', () => {
  it('names and paths each shape once', () => {
    expect(new Set(URL_SHAPES.map((s) => s.name)).size).toBe(URL_SHAPES.length);
    expect(new Set(URL_SHAPES.map((s) => expressPath(s))).size).toBe(URL_SHAPES.length);
  });

  it('puts every credential in a parameter of its own path, after a literal segment', () => {
    for (const shape of URL_SHAPES.filter((s) => s.credential)) {
      expect(shape.path, shape.name).toContain(`/{${shape.credential!.param}}`);
    }
    expect(() => credentialRouteSegments()).not.toThrow();
  });

  it('keeps the hot route contract: hot shapes are capped, off the plain port, {id} or a credential then version, arch, filename', () => {
    for (const shape of URL_SHAPES.filter((s) => s.hot)) {
      expect(shape.capped, shape.name).toBe(true);
      expect(shape.plainHttp, shape.name).toBe(false);
      const params = [...shape.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      expect(params, shape.name).toEqual([shape.credential?.param ?? 'id', 'version', 'arch', 'filename']);
    }
  });
});

describe('forms derived from the table', () => {
  it('the image routers and the front door register exactly the express patterns of the shapes outside the API', () => {
    const registered = [
      ...routePaths(discoveryImageRoutes(idleContext)),
      ...routePaths(pxeInitrdRoutes(idleContext)),
      ...routePaths(bootArtifactRoutes(idleContext)),
      ...routePaths(healthRoutes(undefined)),
      ...routePaths(frontDoorHostRoutes({} as FrontDoor)),
    ];
    const imageSide = URL_SHAPES.filter((s) => !s.path.startsWith(`${API_BASE}/`)).map((s) => expressPath(s));
    expect(new Set(registered.filter((p) => !['/health', '/ready'].includes(p)))).toEqual(new Set(imageSide));
    expect(expressPath(URL_SHAPE.isoByToken)).toBe('/bytoken/:token/:version/:arch/:filename');
  });

  it('the core registers the InfraEnv files route at the table path under API_BASE', () => {
    expect(API_PREFIX).toBe('/api/assisted-install/v2');
    expect(API_BASE + apiRoutePath(URL_SHAPE.infraEnvFiles)).toBe(expressPath(URL_SHAPE.infraEnvFiles));
    expect(apiRoutePath(URL_SHAPE.infraEnvFiles)).toBe('/v2/infra-envs/:infra_env_id/downloads/files');
  });

  it('the hot route matches the plain form of exactly the hot shapes, labelled with their express pattern', () => {
    const match = hotRouteMatcher();
    for (const shape of URL_SHAPES) {
      const found = match(sampleTarget(shape));
      if (!shape.hot) {
        expect(found, shape.name).toBeUndefined();
        continue;
      }
      expect(found?.shape, shape.name).toBe(shape);
      expect(found?.label).toBe(expressPath(shape));
      for (const [name, value] of Object.entries(found!.params)) expect(value).toBe(SAMPLE[name]);
      const plain = fillPath(shape, SAMPLE);
      for (const variant of [`${plain}?x=1`, `${plain}/`, plain.toUpperCase(), plain.replace('4.17', '4%2E17')])
        expect(match(variant), variant).toBeUndefined();
    }
  });

  it("the request cap's prefixes cover exactly the capped shapes", () => {
    expect(ARTIFACT_PATH_PREFIXES).toEqual(['/byid', '/bytoken', '/byapikey', '/images', '/boot-artifacts']);
    expect(ARTIFACT_PATH_PREFIXES).toEqual(cappedPathPrefixes(URL_SHAPES));
    for (const shape of URL_SHAPES) {
      const target = sampleTarget(shape);
      const covered = ARTIFACT_PATH_PREFIXES.some((prefix) => target.startsWith(`${prefix}/`));
      expect(covered, shape.name).toBe(shape.capped);
    }
  });

  it('the plain-HTTP port serves exactly the plainHttp shapes', () => {
    for (const shape of URL_SHAPES) {
      const refusal = plainHttpRefusal('GET', sampleTarget(shape), 'ipxe', HTTPS);
      expect(refusal === undefined, shape.name).toBe(shape.plainHttp !== false);
    }
  });

  it('the redaction hides the credential parameter of every shape that has one, and nothing of the others', () => {
    for (const shape of URL_SHAPES) {
      const target = fillPath(shape, SAMPLE);
      const redacted = redactUrl(target);
      if (shape.credential) {
        expect(redacted, shape.name).toBe(target.replace(SAMPLE[shape.credential.param]!, REDACTED));
      } else {
        expect(redacted, shape.name).toBe(target);
      }
    }
  });

  it("the core's URL builders spell the table's paths, which the image face takes back", () => {
    const base = 'https://images.example:8443/prefix/';
    const match = hotRouteMatcher();
    const cases: [Parameters<typeof isoUrl>[2], UrlShape, string][] = [
      [{ kind: 'byid' }, URL_SHAPE.isoById, ID],
      [{ kind: 'bytoken', token: SECRET }, URL_SHAPE.isoByToken, SECRET],
      [{ kind: 'byapikey', apiKey: SECRET }, URL_SHAPE.isoByApiKey, SECRET],
    ];
    for (const [auth, shape, key] of cases) {
      const url = new URL(isoUrl(base, ID, auth, '4.17', 'x86_64', 'minimal-iso'));
      const target = url.pathname.slice('/prefix'.length);
      const found = match(target);
      expect(found?.shape).toBe(shape);
      expect(found?.params[shape.credential?.param ?? 'id']).toBe(key);
      expect(found?.params.filename).toBe('minimal.iso');
    }
    const pxe = pxeUrls('http://10.0.0.1:8080', ID, '4.17', 'x86_64', { param: 'api_key', value: SECRET });
    expect(new URL(pxe.initrd).pathname).toBe(fillPath(URL_SHAPE.pxeInitrd, { id: ID }));
    expect(new URL(pxe.kernel).pathname).toBe(fillPath(URL_SHAPE.bootArtifact, { kind: 'kernel' }));
    expect(new URL(pxe.rootfs).pathname).toBe(fillPath(URL_SHAPE.bootArtifact, { kind: 'rootfs' }));
    for (const url of Object.values(pxe)) {
      const { pathname, search } = new URL(url);
      expect(plainHttpRefusal('GET', pathname + search, 'ipxe', HTTPS), url).toBeUndefined();
    }
    const files = new URL(filesUrl('http://10.0.0.1:8080/', ID, { file_name: 'ipxe-script' }));
    expect(files.pathname).toBe(`${API_PREFIX}/infra-envs/${ID}/downloads/files`);
    expect(plainHttpRefusal('GET', files.pathname + files.search, 'ipxe', HTTPS)).toBeUndefined();
  });
});

describe('the API prefix', () => {
  /** Product modules under src/ (no tests, no test helpers). */
  function productModules(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return name === 'test-support' ? [] : productModules(full);
      return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [full] : [];
    });
  }

  it('is spelled in code only in url-grammar.ts', () => {
    const spelled = productModules(path.join(PACKAGE_ROOT, 'src')).filter((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .some((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && line.includes('/api/assisted-install')),
    );
    expect(spelled.map((f) => path.relative(PACKAGE_ROOT, f))).toEqual(['src/url-grammar.ts']);
  });

  it('is what the browser console and the guest agent (which cannot import it) spell', () => {
    expect(readFileSync(path.join(PACKAGE_ROOT, 'console/api.js'), 'utf8')).toContain(
      `export const API = '${API_PREFIX}';`,
    );
    const agent = readFileSync(path.join(PACKAGE_ROOT, 'fixtures/guest/agent.sh'), 'utf8');
    const spellings = agent.match(/\/api\/assisted-install\/[a-z0-9]+/g) ?? [];
    expect(spellings.length).toBeGreaterThan(0);
    for (const spelling of spellings) expect(spelling).toBe(API_PREFIX);
  });
});

describe('a credential-bearing row added to the table', () => {
  const BMC_ROW: UrlShape = {
    name: 'iso-by-bmc-token',
    path: '/bybmc/{token}/{version}/{arch}/{filename}',
    credential: { param: 'token', kind: 'image-token' },
    capped: true,
    plainHttp: false,
    hot: true,
  };
  const table = [...URL_SHAPES, BMC_ROW];
  const target = fillPath(BMC_ROW, SAMPLE);

  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('is redacted, capped, refused on the plain port and given an express route, from that one row', () => {
    expect(redactUrl(target)).toContain(SECRET); // the shipped table does not know it
    expect(urlRedactor(table)(target)).toBe(`/bybmc/${REDACTED}/4.17/x86_64/full.iso`);
    expect(urlRedactor(table)(`/ByBmc/${SECRET}/4.17/x86_64/full.iso?x=1`)).not.toContain(SECRET);
    expect(cappedPathPrefixes(table)).toContain('/bybmc');
    expect(plainHttpRefusal('GET', target, 'ipxe', HTTPS, table)).toBeInstanceOf(ForbiddenError);
    expect(routePaths(discoveryImageRoutes(idleContext, table))).toContain('/bybmc/:token/:version/:arch/:filename');
  });

  it('is matched by the hot route, held to the request cap and resolved as its credential kind', async () => {
    const asked: { infraEnvId: string; credential: unknown }[] = [];
    let admitted!: () => void;
    const firstAdmitted = new Promise<void>((resolve) => (admitted = resolve));
    const context = {
      ...idleContext,
      // the first request holds its slot: its ISO never comes
      artifacts: {
        discoveryIso: (request: { infraEnvId: string; credential: unknown }) => {
          asked.push(request);
          admitted();
          return new Promise(() => {});
        },
      } as unknown as ArtifactService,
      urlTokens: { infraEnvOf: (token: string) => Promise.resolve(token === SECRET ? ID : 'unknown') },
    } satisfies ImageRouteContext;
    const cap = new RequestCap(
      { max: 1, perAddress: 1, minProgressBytes: 0, minProgressWindowMs: 30_000 },
      idleContext.metrics,
    );
    const labels: string[] = [];
    const route = hotIsoRoute(
      context,
      cap,
      {
        onRequest: (_req, _res, label) => labels.push(label),
        onError: (req: IncomingMessage, res: ServerResponse, err) => writeErrorResponse(req, res, err),
      },
      table,
    );
    const srv = http.createServer((req, res) => {
      if (!route(req, res)) res.writeHead(404).end();
    });
    server = srv;
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;

    const first = http.get(`${base}${target}`);
    first.on('error', () => {}); // cut at the end of the test
    await firstAdmitted;
    expect(labels).toEqual(['/bybmc/:token/:version/:arch/:filename']);
    expect(asked).toEqual([
      expect.objectContaining({ infraEnvId: ID, credential: { kind: 'image-token', value: SECRET } }),
    ]);
    expect(cap.status().in_flight).toBe(1);

    const second = await fetch(`${base}${target}`);
    expect(second.status).toBe(503); // the one slot is taken: the new row is capped
    expect(labels).toHaveLength(2);
    const escaped = await fetch(`${base}${target.replace('4.17', '4%2E17')}`);
    expect(escaped.status).toBe(404); // not its plain form: left to express, which this server lacks
    first.destroy();
  });
});
