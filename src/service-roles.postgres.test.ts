// What each role (and remote mode, ASSISTED_SERVICE_URL) of the started service answers, as one
// table: which route families answer (the assisted API, the BMC extension API, the web console,
// the image face's artifacts), the fields of /health in their order, the families of /metrics in
// theirs, and what the start hands out. It pins the wings a role runs (src/assembly/wings.ts)
// from the outside, so the assembly can change shape without the service changing behaviour.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { embeddedBackend } from './platform/db/test-support/backends.js';
import { type RunningService, startService } from './service.js';
import { makeCa, makeLeaf } from './http/transport/tls/test-support/certificates.js';
import { FakeAssistedService } from '../test/support/fake-assisted-service.js';
import { HAVE_OPENSSL } from '../test/support/probes.js';
import { unavailable } from '../test/support/requirements.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';

/** One request of each route family, and what it answers when the family is absent (404, no route). */
const FAMILIES = {
  api: '/api/assisted-install/v2/infra-envs',
  extension: '/api/bootsmith/v1/bmcs',
  console: '/console/',
  artifacts: '/boot-artifacts/kernel?version=4.17&arch=x86_64',
} as const;

interface Shape {
  answers: Record<keyof typeof FAMILIES, boolean>;
  health: { status: number; fields: string[] };
  metrics: string[];
}

/** The metric families of /metrics, in order: the same for every role; native TLS adds its two. */
const METRICS = [
  'bootsmith_http_requests_total',
  'bootsmith_bytes_served_total',
  'bootsmith_streams_in_flight',
  'bootsmith_upstream_request_duration_seconds',
  'bootsmith_ignition_lookups_total',
  'bootsmith_artifact_requests_in_flight',
  'bootsmith_artifact_requests_limit',
  'bootsmith_artifact_requests_refused_total',
  'bootsmith_artifact_requests_per_address_limit',
  'bootsmith_artifact_requests_cut_total',
  'bootsmith_artifact_requests_saturated',
  'bootsmith_http_connections_closed_total',
  'bootsmith_http_connections_refused_total',
  'bootsmith_http_connections',
  'bootsmith_http_connection_limit',
  'bootsmith_image_download_bytes_total',
  'bootsmith_image_load_failures_total',
  'bootsmith_image_integrity_mismatches_total',
  'bootsmith_images',
];
const TLS_METRICS = ['bootsmith_tls_reload_failures_total', 'bootsmith_tls_certificate_not_after_seconds'];

async function shapeOf(base: string): Promise<Shape> {
  const answers = {} as Shape['answers'];
  for (const [family, target] of Object.entries(FAMILIES) as Array<[keyof typeof FAMILIES, string]>) {
    const res = await fetch(base + target, { headers: { Range: 'bytes=0-0' } });
    const body = await res.text();
    answers[family] = !(res.status === 404 && body.includes('no route for'));
  }
  const health = await fetch(`${base}/health`);
  const text = await (await fetch(`${base}/metrics`)).text();
  return {
    answers,
    health: { status: health.status, fields: Object.keys((await health.json()) as object) },
    metrics: [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!),
  };
}

describe('the wings each role runs, seen from outside', () => {
  const closers: Array<() => Promise<unknown>> = [];
  let upstream: FakeAssistedService;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-roles-'));
    upstream = new FakeAssistedService(ID, '{"ignition":{"version":"3.1.0"}}');
    await upstream.start();
    closers.push(() => upstream.stop());
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(
    env: Record<string, string>,
    role: string,
    database: boolean,
  ): Promise<RunningService & { dataDir: string }> {
    const storage = database ? await embeddedBackend().create() : undefined;
    if (storage) closers.push(() => storage.cleanup());
    const dataDir = await mkdtemp(path.join(dir, `${role}-`));
    const config = loadConfig(
      {
        LISTEN_PORT: '0',
        LISTEN_ADDRESS: '127.0.0.1',
        DATA_DIR: dataDir,
        AUTH_TYPE: 'none',
        ...(storage ? { DATABASE_URL: storage.databaseUrl! } : {}),
        ...env,
      },
      ['--role', role],
    );
    const service = await startService(config, createLogger('silent'), { defaultMetrics: false });
    closers.push(() => service.close());
    await service.imagesLoaded;
    return Object.assign(service, { dataDir });
  }

  it('all: the API, the BMC extension, the console and the artifacts; /health with the database', async () => {
    const service = await start({}, 'all', true);
    expect(await shapeOf(service.url)).toEqual({
      answers: { api: true, extension: true, console: true, artifacts: true },
      health: { status: 200, fields: ['status', 'images', 'problems', 'artifact_slots', 'warnings', 'database'] },
      metrics: METRICS,
    });
  });

  it('all fronting an assisted-service (ASSISTED_SERVICE_URL): the same wings, Ignition from the fronted one', async () => {
    const service = await start({ ASSISTED_SERVICE_URL: upstream.url }, 'all', true);
    expect(await shapeOf(service.url)).toEqual({
      answers: { api: true, extension: true, console: true, artifacts: true },
      health: { status: 200, fields: ['status', 'images', 'problems', 'artifact_slots', 'warnings', 'database'] },
      metrics: METRICS,
    });
    upstream.seen = [];
    const iso = await fetch(`${service.url}/byid/${ID}/4.17/x86_64/full.iso`, { headers: { Range: 'bytes=0-0' } });
    await iso.arrayBuffer();
    expect(iso.status).toBe(206);
    expect(upstream.seen.map((s) => s.path)).toContain(`/api/assisted-install/v2/infra-envs/${ID}/downloads/files`);
  });

  it('core (with or without ASSISTED_SERVICE_URL): the API, the BMC extension and the console, no artifacts', async () => {
    for (const env of [{}, { ASSISTED_SERVICE_URL: upstream.url }] as Array<Record<string, string>>) {
      const service = await start(env, 'core', true);
      expect(await shapeOf(service.url)).toEqual({
        answers: { api: true, extension: true, console: true, artifacts: false },
        health: { status: 200, fields: ['status', 'images', 'problems', 'warnings', 'database'] },
        metrics: METRICS,
      });
    }
  });

  it('image: the artifacts only, without a database (no embedded PostgreSQL in DATA_DIR)', async () => {
    const service = await start({ ASSISTED_SERVICE_URL: upstream.url }, 'image', false);
    expect(await shapeOf(service.url)).toEqual({
      answers: { api: false, extension: false, console: false, artifacts: true },
      health: { status: 200, fields: ['status', 'images', 'problems', 'artifact_slots', 'warnings'] },
      metrics: METRICS,
    });
    expect(await readdir(service.dataDir)).not.toContain('postgres');
  });

  it.skipIf(unavailable({ openssl: HAVE_OPENSSL }))(
    'all with native TLS and HTTP_ROUTES=all: /health ends with tls, on the plain listener too',
    async () => {
      const ca = makeCa(dir);
      const leaf = makeLeaf(dir, ca, 'roles');
      const env = {
        HTTPS_CERT_FILE: leaf.certFile,
        HTTPS_KEY_FILE: leaf.keyFile,
        HTTP_LISTEN_PORT: '0',
        HTTP_ROUTES: 'all',
        SERVICE_CA_CERT_FILE: ca.certFile,
      };
      const service = await start(env, 'all', true);
      expect(await shapeOf(service.plainUrl!)).toEqual({
        answers: { api: true, extension: true, console: true, artifacts: true },
        health: {
          status: 200,
          fields: ['status', 'images', 'problems', 'artifact_slots', 'warnings', 'database', 'tls'],
        },
        metrics: [...METRICS.slice(0, 15), ...TLS_METRICS, ...METRICS.slice(15)],
      });
    },
  );
});
