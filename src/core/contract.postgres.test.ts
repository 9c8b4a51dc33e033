// The contract suite: upstream's swagger (../shared/contracts) drives a real core over loopback
// through swagger-client, by operationId, and every response is validated with ajv against what the
// swagger declares for that operation and status (contract-schema.ts validateResponse). Covers every
// operation bootsmith implements, the agent loop, and the error cases of issue 14: unknown fields
// ignored, 422 with go-openapi codes vs 400 semantic checks, 405 with Allow, minimal-iso accepted on
// an image without miniso.dat, a cluster_id naming no cluster, install progress refused for unbound
// hosts, reset, logs progress, agent-triggered events, openshift-versions.
// Also checks the validator itself is live (skips when ../shared is absent, fails under CI=true),
// so the conforms() checks in handlers/*.test.ts and auth.postgres.test.ts cannot pass vacuously.
// On the run's embedded PostgreSQL server, with AUTH_TYPE=none and, for the agent calls, local.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerClient, { type SwaggerClientInstance } from 'swagger-client';
import YAML from 'yaml';
import { HAVE_SWAGGER } from '../../test/support/probes.js';
import { unavailable } from '../../test/support/requirements.js';
import { GO_OPENAPI_ERROR, loadContract, SWAGGER_PATH, type Contract } from './test-support/contract-schema.js';
import { fakeCatalog, inventory, PULL_SECRET, startHarness, type Harness } from './test-support/harness.js';
import { embeddedBackend } from '../platform/db/test-support/backends.js';

const SKIP = unavailable({ '../shared/contracts (the upstream swagger)': HAVE_SWAGGER });

describe.skipIf(SKIP)('swagger contract validator', () => {
  it('rejects bodies that break the definitions and accepts conforming ones', () => {
    const c = loadContract()!;
    expect(c.validate('error', { kind: 'Error', id: 400, href: '', code: '400', reason: 'x' })).toEqual([]);
    expect(c.validate('error', { kind: 'Oops', id: 400 })).not.toEqual([]);
    expect(
      c.validate('host', { kind: 'Host', id: 'not-a-uuid', href: '', status: 'known-unbound', status_info: '' }),
    ).not.toEqual([]);
    expect(
      c.validate('host', {
        kind: 'Host',
        id: '8b3f6c8e-7a47-4b3a-9c9e-2f1c1b1b1b1b',
        href: '',
        status: 'flying',
        status_info: '',
      }),
    ).not.toEqual([]);
    expect(c.validate('infra_error', { code: 401, message: 'no' })).toEqual([]);
    expect(c.validate(GO_OPENAPI_ERROR, { code: 602, message: 'name in body is required' })).toEqual([]);
    expect(c.validate(GO_OPENAPI_ERROR, { code: '602', message: 'x' })).not.toEqual([]);
    // per operation and status
    expect(
      c.validateResponse('v2ListSupportedOpenshiftVersions', 200, { '4.16': { display_name: '4.16' } }),
    ).not.toEqual([]);
    expect(c.validateResponse('v2TriggerEvent', 201, undefined)).toEqual([]);
    expect(c.validateResponse('v2TriggerEvent', 201, { x: 1 })).not.toEqual([]);
    expect(
      c.validateResponse('v2GetHost', 200, { kind: 'Error', id: 400, href: '', code: '400', reason: 'x' }),
    ).not.toEqual([]);
  });
});

/** The operations bootsmith's core implements; the suite fails if one of them was not driven. */
const IMPLEMENTED = [
  'RegisterInfraEnv',
  'ListInfraEnvs',
  'GetInfraEnv',
  'UpdateInfraEnv',
  'DeregisterInfraEnv',
  'GetInfraEnvDownloadURL',
  'RegenerateInfraEnvSigningKey',
  'v2DownloadInfraEnvFiles',
  'GetInfraEnvPresignedFileURL',
  'DownloadMinimalInitrd',
  'v2RegisterHost',
  'v2ListHosts',
  'v2GetHost',
  'v2UpdateHost',
  'v2DeregisterHost',
  'v2GetNextSteps',
  'v2PostStepReply',
  'v2UpdateHostInstallProgress',
  'v2UpdateHostLogsProgress',
  'v2ResetHost',
  'v2GetHostIgnition',
  'v2ListEvents',
  'v2TriggerEvent',
  'v2ListSupportedOpenshiftVersions',
] as const;
type OperationId = (typeof IMPLEMENTED)[number];

interface Answer {
  status: number;
  body: any;
  headers: Record<string, string>;
}

describe.skipIf(SKIP)('upstream swagger-client against a real core', () => {
  let contract: Contract;
  let spec: Record<string, unknown>;
  let storage: Awaited<ReturnType<ReturnType<typeof embeddedBackend>['create']>>;
  let h: Harness;
  let client: SwaggerClientInstance;
  const driven = new Map<string, Set<number>>();

  beforeAll(async () => {
    contract = loadContract()!;
    spec = YAML.parse(readFileSync(SWAGGER_PATH, 'utf8')) as Record<string, unknown>;
    storage = await embeddedBackend().create();
    h = await startHarness(storage, {
      hostMaxDisconnectionMs: 60_000,
      catalog: fakeCatalog([
        {},
        { openshiftVersion: '4.15', version: '415.92.202402201450-0' },
        { openshiftVersion: '4.17.0-ec.2', version: '417.94.202408270355-0' },
        { openshiftVersion: '4.16', cpuArchitecture: 'aarch64', minimalIsoSupported: false },
      ]),
    });
    client = await SwaggerClient({ spec: { ...spec, host: new URL(h.baseUrl).host, schemes: ['http'] } });
  });
  afterAll(async () => {
    await h?.close();
    await storage?.cleanup();
  });

  /** Executes `operationId` through swagger-client and validates the response against the swagger. */
  async function call(operationId: OperationId, parameters: Record<string, unknown> = {}): Promise<Answer> {
    let answer: Answer;
    try {
      const r = await client.execute({ operationId, parameters, requestContentType: 'application/json' });
      answer = { status: r.status, body: r.body ?? (r.text || undefined), headers: r.headers };
    } catch (err) {
      const r = (
        err as { response?: { status: number; body: unknown; text?: string; headers: Record<string, string> } }
      ).response;
      if (!r) throw err;
      answer = { status: r.status, body: r.body ?? (r.text || undefined), headers: r.headers };
    }
    const body = answer.body instanceof Blob ? undefined : answer.body;
    expect(
      contract.validateResponse(operationId, answer.status, body),
      `${operationId} ${answer.status}: ${JSON.stringify(body)?.slice(0, 300)}`,
    ).toEqual([]);
    (driven.get(operationId) ?? driven.set(operationId, new Set()).get(operationId)!).add(answer.status);
    return answer;
  }

  const createParams = (extra: Record<string, unknown> = {}) => ({
    'infraenv-create-params': { name: 'contract', pull_secret: PULL_SECRET, openshift_version: '4.16', ...extra },
  });

  it('InfraEnv lifecycle: create, get, list, update, URLs, files, signing key, delete', async () => {
    const created = await call('RegisterInfraEnv', createParams({ image_type: 'minimal-iso' }));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await call('GetInfraEnv', { infra_env_id: id })).body.type).toBe('minimal-iso');
    const list = await call('ListInfraEnvs');
    expect(list.body.map((e: { id: string }) => e.id)).toContain(id);
    const updated = await call('UpdateInfraEnv', {
      infra_env_id: id,
      'infra-env-update-params': { image_type: 'full-iso', additional_ntp_sources: 'ntp.example.com' },
    });
    expect(updated.status).toBe(201);
    expect(updated.body.additional_ntp_sources).toBe('ntp.example.com');
    expect((await call('GetInfraEnvDownloadURL', { infra_env_id: id })).body.url).toContain(`/byid/${id}/4.16/`);
    expect((await call('RegenerateInfraEnvSigningKey', { infra_env_id: id })).status).toBe(204);
    const ipxe = await call('v2DownloadInfraEnvFiles', { infra_env_id: id, file_name: 'ipxe-script' });
    expect(ipxe.status).toBe(200);
    const presigned = await call('GetInfraEnvPresignedFileURL', { infra_env_id: id, file_name: 'ipxe-script' });
    expect(presigned.body.url).toContain('file_name=ipxe-script');
    const initrd = await call('DownloadMinimalInitrd', { infra_env_id: id });
    expect([200, 204]).toContain(initrd.status);
    expect((await call('DeregisterInfraEnv', { infra_env_id: id })).status).toBe(204);
    expect((await call('GetInfraEnv', { infra_env_id: id })).status).toBe(404);
  });

  it('the agent loop: register, steps, inventory, known-unbound, update, logs, events; progress refused; reset 409', async () => {
    const ie = (await call('RegisterInfraEnv', createParams())).body as { id: string };
    const hostId = crypto.randomUUID();
    const reg = await call('v2RegisterHost', {
      infra_env_id: ie.id,
      discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
      'new-host-params': { host_id: hostId, discovery_agent_version: 'v1' },
    });
    expect(reg.status).toBe(201);
    expect(reg.body.status).toBe('discovering-unbound');
    const steps = await call('v2GetNextSteps', { infra_env_id: ie.id, host_id: hostId, timestamp: 1_700_000_000 });
    const inv = steps.body.instructions.find((s: { step_type: string }) => s.step_type === 'inventory');
    expect(
      (
        await call('v2PostStepReply', {
          infra_env_id: ie.id,
          host_id: hostId,
          reply: { step_type: 'inventory', step_id: inv.step_id, exit_code: 0, output: JSON.stringify(inventory()) },
        })
      ).status,
    ).toBe(204);
    const known = await call('v2GetHost', { infra_env_id: ie.id, host_id: hostId });
    expect(known.body.status).toBe('known-unbound');
    expect(known.body.status_info).toBe('Host is ready to be bound to a cluster');
    expect((await call('v2ListHosts', { infra_env_id: ie.id })).body).toHaveLength(1);
    const renamed = await call('v2UpdateHost', {
      infra_env_id: ie.id,
      host_id: hostId,
      'host-update-params': { host_name: 'node-1.example.com', host_role: 'worker' },
    });
    expect(renamed.body.requested_hostname).toBe('node-1.example.com');

    const logs = await call('v2UpdateHostLogsProgress', {
      infra_env_id: ie.id,
      host_id: hostId,
      'logs-progress-params': { logs_state: 'collecting' },
    });
    expect(logs.status).toBe(204);
    expect((await call('v2GetHost', { infra_env_id: ie.id, host_id: hostId })).body.logs_info).toBe('collecting');

    const event = await call('v2TriggerEvent', {
      'trigger-event-params': {
        name: 'agent_note',
        infra_env_id: ie.id,
        host_id: hostId,
        severity: 'info',
        message: 'agent: hello from the contract suite',
        event_time: new Date().toISOString(),
      },
    });
    expect(event.status).toBe(201);
    const events = await call('v2ListEvents', { infra_env_id: ie.id, host_id: hostId });
    expect(events.body.map((e: { message: string }) => e.message)).toContain('agent: hello from the contract suite');
    expect(Number(events.headers['event-count'])).toBe(events.body.length);

    const progress = await call('v2UpdateHostInstallProgress', {
      infra_env_id: ie.id,
      host_id: hostId,
      'host-progress': { current_stage: 'Installing' },
    });
    expect(progress.status).toBe(400);
    expect(progress.body.reason).toBe(`host ${hostId} is not bound to any cluster, cannot update progress`);
    const reset = await call('v2ResetHost', { infra_env_id: ie.id, host_id: hostId });
    expect(reset.status).toBe(409);
    const ignition = await call('v2GetHostIgnition', { infra_env_id: ie.id, host_id: hostId });
    expect(ignition.status).toBe(404);
    expect((await call('v2DeregisterHost', { infra_env_id: ie.id, host_id: hostId })).status).toBe(204);
    expect((await call('v2GetHost', { infra_env_id: ie.id, host_id: hostId })).status).toBe(404);
  });

  it('lenient parsing and upstream error codes: unknown fields ignored, 422 schema errors, 400 semantic ones, 404 cluster', async () => {
    const lenient = await call('RegisterInfraEnv', createParams({ a_field_from_a_newer_client: { x: [1] } }));
    expect(lenient.status).toBe(201);
    const cases: [Record<string, unknown>, number, number | string, RegExp][] = [
      [{ name: undefined }, 422, 602, /^name in body is required$/],
      [
        { image_type: 'floppy' },
        422,
        606,
        /^image_type in body should be one of \[full-iso minimal-iso disconnected-iso\]$/,
      ],
      [{ cluster_id: 'not-a-uuid' }, 422, 601, /^cluster_id in body must be of type uuid: "not-a-uuid"$/],
      [{ additional_trust_bundle: 'x'.repeat(65536) }, 422, 603, /should be at most 65535 chars long$/],
      [
        { kernel_arguments: [{ operation: 'append', value: 'a b' }] },
        422,
        605,
        /^kernel_arguments.0.value in body should match/,
      ],
      [{ network_discovery_delay_seconds: -5 }, 422, 609, /should be greater than or equal to 0$/],
      [
        { name: ['x'] },
        400,
        400,
        /^parsing infraenvCreateParams body from "" failed, because json: cannot unmarshal array/,
      ],
      [{ pull_secret: 'not json' }, 400, '400', /pull secret/],
      [{ kernel_arguments: [{ operation: 'replace', value: 'quiet' }] }, 400, '400', /append/],
    ];
    for (const [extra, status, code, message] of cases) {
      const r = await call('RegisterInfraEnv', createParams(extra));
      expect(r.status, JSON.stringify(extra).slice(0, 80)).toBe(status);
      if (typeof code === 'number') {
        expect(r.body.code).toBe(code);
        expect(r.body.message).toMatch(message);
      } else {
        expect(r.body.code).toBe(code); // upstream's `error` body: code is a string
        expect(r.body.reason).toMatch(message);
      }
    }
    const cluster = crypto.randomUUID();
    const noCluster = await call('RegisterInfraEnv', createParams({ cluster_id: cluster }));
    expect(noCluster.status).toBe(404);
    expect(noCluster.body.reason).toBe(`Cluster ID ${cluster} does not exist`);
    const badPath = await call('GetInfraEnv', { infra_env_id: 'x' });
    expect(badPath.status).toBe(422);
    expect(badPath.body).toEqual({ code: 601, message: 'infra_env_id in path must be of type strfmt.UUID: "x"' });
    const badQuery = await call('v2ListEvents', { infra_env_id: lenient.body.id, limit: 'many' });
    expect(badQuery.status).toBe(422);
    expect(badQuery.body.code).toBe(601);

    // a wrong method on a known path (swagger-client only sends declared methods: plain fetch)
    const wrong = await fetch(`${h.api}/infra-envs/${lenient.body.id}/hosts`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET,HEAD,POST');
    const wrongBody = await wrong.json();
    expect(contract.validate(GO_OPENAPI_ERROR, wrongBody)).toEqual([]);
    expect(wrongBody).toEqual({ code: 405, message: 'method DELETE is not allowed, but [GET,HEAD,POST] are' });
  });

  it('minimal-iso is accepted on an image without miniso.dat (the download reports it), with unknown-cluster 404', async () => {
    const r = await call('RegisterInfraEnv', createParams({ image_type: 'minimal-iso', cpu_architecture: 'aarch64' }));
    expect(r.status).toBe(201);
    expect(r.body.type).toBe('minimal-iso');
    expect(r.body.download_url).toMatch(/\/4\.16\/aarch64\/minimal\.iso$/);
  });

  it('v2ListSupportedOpenshiftVersions from the image catalog', async () => {
    const all = await call('v2ListSupportedOpenshiftVersions');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      '4.15': { display_name: '4.15', support_level: 'production', default: false, cpu_architectures: ['x86_64'] },
      '4.16': {
        display_name: '4.16',
        support_level: 'production',
        default: true,
        cpu_architectures: ['aarch64', 'x86_64'],
      },
      '4.17.0-ec.2': {
        display_name: '4.17.0-ec.2',
        support_level: 'beta',
        default: false,
        cpu_architectures: ['x86_64'],
      },
    });
    expect(Object.keys((await call('v2ListSupportedOpenshiftVersions', { version: '4.1' })).body)).toHaveLength(3);
    expect(Object.keys((await call('v2ListSupportedOpenshiftVersions', { version: '17' })).body)).toEqual([
      '4.17.0-ec.2',
    ]);
    expect(Object.keys((await call('v2ListSupportedOpenshiftVersions', { only_latest: true })).body).sort()).toEqual([
      '4.15',
      '4.16',
      '4.17.0-ec.2',
    ]);
  });

  it('drove every operation bootsmith implements', () => {
    const missing = IMPLEMENTED.filter((op) => !driven.has(op));
    expect(missing).toEqual([]);
    // every one of them exists in upstream's swagger
    const known = new Set(contract.operations().map((o) => o.operationId));
    expect(IMPLEMENTED.filter((op) => !known.has(op))).toEqual([]);
  });
});

describe.skipIf(SKIP)('upstream swagger-client agent calls with AUTH_TYPE=local', () => {
  let contract: Contract;
  let storage: Awaited<ReturnType<ReturnType<typeof embeddedBackend>['create']>>;
  let h: Harness;
  beforeAll(async () => {
    contract = loadContract()!;
    storage = await embeddedBackend().create();
    // a short image URL: the /byapikey/<jwt>/ download URL must stay within 255 characters
    h = await startHarness(storage, { authType: 'local', runMonitor: false, imageServiceBaseUrl: 'http://i.test' });
  });
  afterAll(async () => {
    await h?.close();
    await storage?.cleanup();
  });

  it('authenticates agents with X-Secret-Key (agentAuth) and users with Authorization (userAuth)', async () => {
    const spec = YAML.parse(readFileSync(SWAGGER_PATH, 'utf8')) as Record<string, unknown>;
    const admin = await h.core.auth.adminToken();
    const user = await SwaggerClient({
      spec: { ...spec, host: new URL(h.baseUrl).host, schemes: ['http'] },
      authorizations: { userAuth: `Bearer ${admin}` },
    });
    const created = await user
      .execute({
        operationId: 'RegisterInfraEnv',
        parameters: { 'infraenv-create-params': { name: 'local', pull_secret: PULL_SECRET } },
        requestContentType: 'application/json',
      })
      .catch((e: { response: { status: number; body: unknown } }) => e.response);
    expect(created.status).toBe(201);
    expect(contract.validateResponse('RegisterInfraEnv', 201, created.body)).toEqual([]);
    const id = (created.body as { id: string }).id;
    const agent = await SwaggerClient({
      spec: { ...spec, host: new URL(h.baseUrl).host, schemes: ['http'] },
      authorizations: { agentAuth: await h.core.auth.infraEnvToken(id) },
    });
    const hostId = crypto.randomUUID();
    const reg = await agent.execute({
      operationId: 'v2RegisterHost',
      parameters: { infra_env_id: id, 'new-host-params': { host_id: hostId } },
      requestContentType: 'application/json',
    });
    expect(reg.status).toBe(201);
    expect(contract.validateResponse('v2RegisterHost', 201, reg.body)).toEqual([]);
    const ev = await agent.execute({
      operationId: 'v2TriggerEvent',
      parameters: {
        'trigger-event-params': {
          infra_env_id: id,
          severity: 'info',
          message: 'agent m',
          event_time: new Date().toISOString(),
        },
      },
      requestContentType: 'application/json',
    });
    expect(ev.status).toBe(201);
    // without a credential the agent's calls are refused with upstream's infra_error
    const anonymous = await SwaggerClient({ spec: { ...spec, host: new URL(h.baseUrl).host, schemes: ['http'] } });
    const refused = await anonymous
      .execute({ operationId: 'v2GetNextSteps', parameters: { infra_env_id: id, host_id: hostId } })
      .catch((e: { response: { status: number; body: unknown } }) => e.response);
    expect(refused.status).toBe(401);
    expect(contract.validateResponse('v2GetNextSteps', 401, refused.body)).toEqual([]);
  });
});
