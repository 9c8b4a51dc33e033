// deploy/kubernetes/ against the Kubernetes OpenAPI schema and against the code (issue 13):
// every manifest validates with kubernetes-models (validators generated from the Kubernetes
// OpenAPI schema, offline); every kustomization names files that exist and objects the base
// has; every env name is one the code reads, and each Deployment's environment and arguments
// give a valid configuration (src/config.ts) for its role, listening on its container port;
// probes hit /health and /live, which answer on a real listener; the drain fits in the
// termination grace period; pods run as non-root on a read-only root filesystem with the cache
// on a volume; PodDisruptionBudgets and Services select the Deployments' pods; memory requests
// cover the measured peak of a replica under 200 streams.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { healthRoutes } from '../../src/http/face/routes/health.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPLOY = path.join(REPO_ROOT, 'deploy', 'kubernetes');

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: any };

const VALIDATORS: Record<string, (m: Manifest) => void> = {
  'v1/ConfigMap': (m) => new ConfigMap(m as never).validate(),
  'v1/Secret': (m) => new Secret(m as never).validate(),
  'v1/Service': (m) => new Service(m as never).validate(),
  'v1/Namespace': (m) => new Namespace(m as never).validate(),
  'apps/v1/Deployment': (m) => new Deployment(m as never).validate(),
  'policy/v1/PodDisruptionBudget': (m) => new PodDisruptionBudget(m as never).validate(),
};

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(e) ? [p] : [];
  });
}

function load(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
    return d.toJS() as Manifest;
  });
}

const files = yamlFiles(DEPLOY);
const kustomizations = files.filter((f) => path.basename(f) === 'kustomization.yaml');
const manifests = files.filter((f) => !kustomizations.includes(f)).flatMap((f) => load(f).map((m) => ({ file: f, m })));
const base = (kind: string) =>
  manifests.filter(({ file, m }) => file.includes(`${path.sep}base${path.sep}`) && m.kind === kind).map((x) => x.m);
const deployments = base('Deployment');
const configMap = base('ConfigMap')[0]!;
const databaseSecret = base('Secret').find((s) => s.metadata.name === 'bootsmith-database')!;

/** Every environment variable name the service's code reads. */
function namesTheCodeReads(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const p = path.join(dir, e);
      if (statSync(p).isDirectory()) {
        if (e !== 'test-support') walk(p);
      } else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) {
        const text = readFileSync(p, 'utf8');
        for (const re of [
          /\benv\.([A-Z][A-Z0-9_]+)/g,
          /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
          /\(env, '([A-Z][A-Z0-9_]+)'/g,
        ])
          for (const m of text.matchAll(re)) names.add(m[1]!);
      }
    }
  };
  walk(path.join(REPO_ROOT, 'src'));
  return names;
}

/** The container's environment as the kubelet builds it (ConfigMap via envFrom, Secret refs resolved). */
function environmentOf(
  d: Manifest,
  cm: Manifest = configMap,
  secret: Manifest = databaseSecret,
): Record<string, string> {
  const c = d.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    expect(from.configMapRef.name).toBe(cm.metadata.name);
    Object.assign(env, cm.data);
  }
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else {
      const ref = e.valueFrom.secretKeyRef;
      expect(ref.name).toBe(secret.metadata.name);
      env[e.name] = secret.stringData[ref.key];
    }
  }
  return env;
}

describe('deploy/kubernetes', () => {
  it('has a base and an example overlay, every manifest valid against the Kubernetes OpenAPI schema', () => {
    expect(kustomizations.map((k) => path.relative(DEPLOY, k)).sort()).toEqual([
      'base/kustomization.yaml',
      'overlays/example/kustomization.yaml',
    ]);
    expect(manifests.length).toBeGreaterThanOrEqual(12);
    for (const { file, m } of manifests) {
      const validate = VALIDATORS[`${m.apiVersion}/${m.kind}`];
      expect(validate, `${file}: ${m.apiVersion} ${m.kind} has no validator`).toBeDefined();
      expect(() => validate!(m), path.relative(DEPLOY, file)).not.toThrow();
    }
    // the validators do reject what the schema forbids
    const broken = structuredClone(deployments[0]!);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    expect(() => VALIDATORS['apps/v1/Deployment']!(broken)).toThrow(/containerPort must be integer/);
  });

  it('names in every kustomization files that exist and objects the base defines', () => {
    for (const k of kustomizations) {
      const kz = load(k)[0]!;
      const dir = path.dirname(k);
      expect(kz.kind).toBe('Kustomization');
      for (const r of kz.resources as string[]) {
        const p = path.join(dir, r);
        expect(existsSync(p), `${k}: ${r}`).toBe(true);
        if (statSync(p).isDirectory()) expect(existsSync(path.join(p, 'kustomization.yaml'))).toBe(true);
      }
      for (const patch of (kz.patches ?? []) as Array<{ path: string }>) {
        const target = load(path.join(dir, patch.path))[0]!;
        expect(
          manifests.some(
            ({ file, m }) =>
              file.includes(`${path.sep}base${path.sep}`) &&
              m.kind === target.kind &&
              m.metadata.name === target.metadata.name,
          ),
          `${patch.path} patches ${target.kind}/${target.metadata.name}`,
        ).toBe(true);
      }
      for (const r of (kz.replicas ?? []) as Array<{ name: string; count: number }>) {
        expect(deployments.map((d) => d.metadata.name)).toContain(r.name);
        expect(r.count).toBeGreaterThanOrEqual(2);
      }
      for (const i of (kz.images ?? []) as Array<{ name: string }>)
        expect(deployments.every((d) => d.spec.template.spec.containers[0].image === i.name)).toBe(true);
    }
  });

  it('uses only environment variables the code reads, and each role gets a valid configuration', () => {
    const known = namesTheCodeReads();
    expect(known.has('DATABASE_URL')).toBe(true); // the scan works
    const overlayCm = manifests.find(({ file, m }) => file.includes('overlays') && m.kind === 'ConfigMap')!.m;
    const overlaySecret = manifests.find(({ file, m }) => file.includes('overlays') && m.kind === 'Secret')!.m;
    for (const cm of [configMap, overlayCm])
      for (const name of Object.keys(cm.data)) expect(known, `ConfigMap key ${name}`).toContain(name);
    expect(deployments.map((d) => d.spec.template.spec.containers[0].args[2]).sort()).toEqual(['core', 'image']);
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0];
      for (const e of c.env) expect(known, `${d.metadata.name} env ${e.name}`).toContain(e.name);
      for (const [cm, secret] of [
        [configMap, databaseSecret],
        [overlayCm, overlaySecret],
      ]) {
        const env = environmentOf(d, cm, secret);
        const config = loadConfig(env, c.args.slice(1));
        expect(config.role).toBe(c.args[2]);
        expect(config.osImages.problems).toEqual([]);
        expect(config.osImages.entries.length).toBeGreaterThan(0);
        expect(config.osImages.entries.every((e) => e.sha256)).toBe(true); // ETags from the configured sha256
        expect(config.listenPort).toBe(c.ports.find((p: { name: string }) => p.name === 'http').containerPort);
        expect(config.dataDir).toBe(c.volumeMounts.find((v: { name: string }) => v.name === 'cache').mountPath);
        expect(config.imageServiceBaseUrl).toBeDefined();
        expect(config.serviceBaseUrl).toBeDefined();
        if (config.role === 'core') expect(config.databaseUrl).toMatch(/^postgres:\/\//);
        if (config.role === 'image') expect(config.assistedServiceUrl).toMatch(/^http:\/\/bootsmith-core:8080$/);
        // the drain fits: preStop sleep + SHUTDOWN_GRACE_SECONDS < terminationGracePeriodSeconds
        const preStop = c.lifecycle.preStop.sleep.seconds as number;
        expect(preStop * 1000 + config.shutdownGraceMs).toBeLessThan(
          d.spec.template.spec.terminationGracePeriodSeconds * 1000,
        );
      }
    }
  });

  it('probes /health for readiness and /live for liveness, which answer on a real listener', async () => {
    const app = express();
    app.use(healthRoutes(undefined));
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      for (const d of deployments) {
        const c = d.spec.template.spec.containers[0];
        expect(c.readinessProbe.httpGet.path).toBe('/health');
        expect(c.livenessProbe.httpGet.path).toBe('/live');
        expect(c.readinessProbe.failureThreshold).toBe(1); // a draining replica leaves at its first 503
        for (const probe of [c.readinessProbe, c.livenessProbe]) {
          expect(c.ports.map((p: { name: string }) => p.name)).toContain(probe.httpGet.port);
          const res = await fetch(`http://127.0.0.1:${port}${probe.httpGet.path}`);
          expect(res.status, probe.httpGet.path).toBe(200);
        }
      }
      expect((await fetch(`http://127.0.0.1:${port}/nope`)).status).toBe(404);
    } finally {
      server.close();
    }
  });

  it('runs ≥ 2 non-root replicas per role on a read-only root, with disruption budgets and Services that select them', () => {
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const c = pod.containers[0];
      expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
      const writable = new Map(
        pod.volumes.map((v: { name: string; emptyDir?: unknown; persistentVolumeClaim?: unknown }) => [
          v.name,
          v.emptyDir ?? v.persistentVolumeClaim,
        ]),
      );
      for (const mountPath of ['/data', '/tmp']) {
        const mount = c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === mountPath);
        expect(writable.get(mount?.name), `${d.metadata.name} ${mountPath}`).toBeDefined();
      }
      const labels = d.spec.template.metadata.labels as Record<string, string>;
      const selects = (sel: Record<string, string>) => Object.entries(sel).every(([k, v]) => labels[k] === v);
      expect(selects(d.spec.selector.matchLabels)).toBe(true);
      const pdbs = base('PodDisruptionBudget').filter((p) => selects(p.spec.selector.matchLabels));
      expect(pdbs.length, d.metadata.name).toBe(1);
      const services = base('Service').filter((s) => selects(s.spec.selector));
      expect(services.length, d.metadata.name).toBe(1);
      for (const p of services[0]!.spec.ports)
        expect(c.ports.map((cp: { name: string }) => cp.name)).toContain(p.targetPort);
    }
  });

  it('requests at least the memory measured for a replica under 200 streams', () => {
    const results = readdirSync(path.join(REPO_ROOT, 'bench', 'results')).filter((f) =>
      f.endsWith('-replica-memory.json'),
    );
    expect(results.length).toBeGreaterThan(0);
    const latest = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'bench', 'results', results.sort().at(-1)!), 'utf8'),
    ) as {
      results: Array<{ streams: number; vmHwmMiB: number }>;
    };
    const peak = Math.max(...latest.results.filter((r) => r.streams >= 200).map((r) => r.vmHwmMiB));
    expect(peak).toBeGreaterThan(0);
    for (const d of deployments) {
      const { requests, limits } = d.spec.template.spec.containers[0].resources;
      const mi = (q: string) => Number(/^(\d+)Mi$/.exec(q)![1]);
      expect(mi(requests.memory), d.metadata.name).toBeGreaterThanOrEqual(peak);
      expect(mi(limits.memory), d.metadata.name).toBeGreaterThanOrEqual(mi(requests.memory));
    }
  });
});
