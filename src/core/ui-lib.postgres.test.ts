// The upstream UI's own API modules against a real core: @openshift-assisted/ui-lib's
// InfraEnvsAPI, HostsAPI, EventsAPI and SupportedOpenshiftVersionsAPI (its CommonJS build, axios with
// axios-case-converter, exactly as the UI sends and reads) perform the UI's InfraEnv flow over
// loopback: versions, register a minimal-ISO InfraEnv, read it back, edit it, image and iPXE URLs,
// a discovered host, host rename, reset, events, delete.
//
// The modules run in Node; the package's `exports` map offers only its React entry points, so they
// are loaded by file path from the installed package (its `./package.json` export locates it). The
// UI's base URL is set through its own hook for authenticated deployments (setAuthInterceptor).
// Their responses are typed with @openshift-assisted/types (the UI's camelCase models, the same
// signatures as ui-lib's declarations), so tsc checks every field this test reads against the
// types the UI compiles with. On the run's embedded PostgreSQL server.
import { createRequire } from 'node:module';
import path from 'node:path';
import type {
  EventList,
  Host,
  HostUpdateParams,
  InfraEnv,
  InfraEnvCreateParams,
  InfraEnvUpdateParams,
  OpenshiftVersions,
  PresignedUrl,
  V2Events,
} from '@openshift-assisted/types/assisted-installer-service';
import type { AxiosInstance } from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCatalog, inventory, PULL_SECRET, sshKey, startHarness, type Harness } from './test-support/harness.js';
import { embeddedBackend } from '../platform/db/test-support/backends.js';

interface Response<T> {
  status: number;
  data: T;
}

/** ui-lib's declarations of the modules used (build/@types/common/api/…), with its model types. */
interface UiApi {
  setAuthInterceptor(interceptor: (client: AxiosInstance) => AxiosInstance): void;
  InfraEnvsAPI: {
    list(clusterId?: string): Promise<Response<InfraEnv[]>>;
    get(id: string): Promise<Response<InfraEnv>>;
    update(id: string, params: InfraEnvUpdateParams): Promise<Response<InfraEnv>>;
    register(params: InfraEnvCreateParams): Promise<Response<InfraEnv>>;
    deregister(id: string): Promise<Response<void>>;
    getImageUrl(id: string): Promise<Response<PresignedUrl>>;
    getIpxeImageUrl(id: string): Promise<Response<PresignedUrl>>;
    getHosts(id: string): Promise<Response<Host[]>>;
  };
  HostsAPI: {
    list(infraEnvId: string): Promise<Response<Host[]>>;
    get(infraEnvId: string, hostId: string): Promise<Response<Host>>;
    update(infraEnvId: string, hostId: string, params: HostUpdateParams): Promise<Response<Host>>;
    reset(infraEnvId: string, hostId: string): Promise<Response<Host>>;
    deregister(infraEnvId: string, hostId: string): Promise<Response<void>>;
  };
  EventsAPI: { list(options: V2Events): Promise<Response<EventList>> };
  /** ui-lib declares OpenshiftVersion[]; upstream's swagger (and its server) answer a map. */
  SupportedOpenshiftVersionsAPI: { list(latestRelease: boolean): Promise<Response<OpenshiftVersions>> };
}

function loadUiApi(): UiApi {
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve('@openshift-assisted/ui-lib/package.json'));
  const api = (name: string) => path.join(root, 'build/cjs/common/api', name);
  const mod = <T>(name: string) => (require(api(`assisted-service/${name}.js`)) as { default: T }).default;
  return {
    setAuthInterceptor: (require(api('axiosClient.js')) as Pick<UiApi, 'setAuthInterceptor'>).setAuthInterceptor,
    InfraEnvsAPI: mod('InfraEnvsAPI'),
    HostsAPI: mod('HostsAPI'),
    EventsAPI: mod('EventsAPI'),
    SupportedOpenshiftVersionsAPI: mod('SupportedOpenshiftVersionsAPI'),
  };
}

/** The status of a refused axios call (axios throws for non-2xx). */
async function refusedStatus(p: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await p;
  } catch (err) {
    const r = (err as { response?: { status: number; data: unknown } }).response;
    if (r) return r;
    throw err;
  }
  throw new Error('expected the call to be refused');
}

describe('the upstream UI (ui-lib API modules) against a real core', () => {
  let storage: Awaited<ReturnType<ReturnType<typeof embeddedBackend>['create']>>;
  let h: Harness;
  let ui: UiApi;
  beforeAll(async () => {
    storage = await embeddedBackend().create();
    h = await startHarness(storage, {
      runMonitor: false,
      catalog: fakeCatalog([{}, { openshiftVersion: '4.17', version: '417.94.202409120353-0' }]),
    });
    ui = loadUiApi();
    ui.setAuthInterceptor((client) => {
      client.defaults.baseURL = h.baseUrl;
      return client;
    });
  });
  afterAll(async () => {
    await h?.close();
    await storage?.cleanup();
  });

  it("performs the UI's InfraEnv flow", async () => {
    const versions = await ui.SupportedOpenshiftVersionsAPI.list(false);
    expect(versions.status).toBe(200);
    expect(versions.data['4.17']).toEqual({
      displayName: '4.17',
      supportLevel: 'production',
      default: true,
      cpuArchitectures: ['x86_64'],
    });
    expect(versions.data['4.16']?.default).toBe(false);

    const key = sshKey();
    const registered = await ui.InfraEnvsAPI.register({
      name: 'ui-infra-env',
      pullSecret: PULL_SECRET,
      openshiftVersion: '4.16',
      cpuArchitecture: 'x86_64',
      imageType: 'minimal-iso',
      sshAuthorizedKey: key,
      proxy: { httpProxy: '', httpsProxy: '', noProxy: '' },
    });
    expect(registered.status).toBe(201);
    const id = registered.data.id;

    const got = (await ui.InfraEnvsAPI.get(id)).data;
    expect(got.kind).toBe('InfraEnv');
    expect(got.name).toBe('ui-infra-env');
    expect(got.type).toBe('minimal-iso');
    expect(got.cpuArchitecture).toBe('x86_64');
    expect(got.openshiftVersion).toBe('4.16');
    expect(got.pullSecretSet).toBe(true);
    expect(got.sshAuthorizedKey).toBe(key);
    expect(got.proxy).toEqual({ httpProxy: '', httpsProxy: '', noProxy: '' });
    expect(got.downloadUrl).toBe(`http://img.example.test:8080/byid/${id}/4.16/x86_64/minimal.iso`);
    expect(Date.parse(got.createdAt)).toBeGreaterThan(0);

    const updated = await ui.InfraEnvsAPI.update(id, {
      imageType: 'full-iso',
      proxy: { httpProxy: 'http://proxy.example.com:3128', noProxy: '.cluster.local' },
      kernelArguments: [{ operation: 'append', value: 'console=ttyS0' }],
    });
    expect(updated.status).toBe(201);
    expect(updated.data.type).toBe('full-iso');
    expect(updated.data.proxy?.httpProxy).toBe('http://proxy.example.com:3128');
    expect(JSON.parse(updated.data.kernelArguments ?? '[]')).toEqual([{ operation: 'append', value: 'console=ttyS0' }]);

    expect((await ui.InfraEnvsAPI.getImageUrl(id)).data.url).toBe(
      `http://img.example.test:8080/byid/${id}/4.16/x86_64/full.iso`,
    );
    expect((await ui.InfraEnvsAPI.getIpxeImageUrl(id)).data.url).toContain(
      `/infra-envs/${id}/downloads/files?file_name=ipxe-script`,
    );

    // an agent boots the image and reports its hardware (what the UI then shows)
    const hostId = crypto.randomUUID();
    const agent = `${h.api}/infra-envs/${id}/hosts`;
    const post = (url: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post(agent, { host_id: hostId })).status).toBe(201);
    expect(
      (
        await post(`${agent}/${hostId}/instructions`, {
          step_type: 'inventory',
          exit_code: 0,
          output: JSON.stringify(inventory({ hostname: 'edge-0.example.com' })),
        })
      ).status,
    ).toBe(204);

    const hosts = (await ui.InfraEnvsAPI.getHosts(id)).data;
    expect(hosts.map((x) => [x.id, x.status, x.statusInfo])).toEqual([
      [hostId, 'known-unbound', 'Host is ready to be bound to a cluster'],
    ]);
    expect((await ui.HostsAPI.list(id)).data).toHaveLength(1);
    const renamed = await ui.HostsAPI.update(id, hostId, { hostName: 'edge-1.example.com' });
    expect(renamed.data.requestedHostname).toBe('edge-1.example.com');
    expect((await ui.HostsAPI.get(id, hostId)).data.requestedHostname).toBe('edge-1.example.com');
    const reset = await refusedStatus(ui.HostsAPI.reset(id, hostId));
    expect(reset.status).toBe(409);

    const events = (await ui.EventsAPI.list({ infraEnvId: id })).data;
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.infraEnvId === id)).toBe(true);
    expect(events.map((e) => e.message)).toContain(`Host ${hostId}: Successfully registered`);

    expect((await ui.InfraEnvsAPI.list()).data.map((e) => e.id)).toContain(id);
    expect((await ui.HostsAPI.deregister(id, hostId)).status).toBe(204);
    expect((await ui.InfraEnvsAPI.deregister(id)).status).toBe(204);
    expect((await refusedStatus(ui.InfraEnvsAPI.get(id))).status).toBe(404);
  });
});
