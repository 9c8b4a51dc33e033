// The repository's round trip on real PostgreSQL (the run's embedded server): records read back
// exactly as written through the column maps (the generated SQL itself is tables.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedBackend } from '../../platform/db/test-support/backends.js';
import type { HostRecord, InfraEnvRecord } from '../model.js';
import { CORE_MIGRATIONS } from './migrations.js';
import { migrate } from '../../platform/db/migration-runner.js';
import { createRepository, type Repository } from './repository.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';

describe('repository round trip on real PostgreSQL', () => {
  let db: SqlDatabase;
  let repo: Repository;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const storage = await embeddedBackend().create();
    cleanup = storage.cleanup;
    db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
    await migrate(db, [CORE_MIGRATIONS]);
    repo = createRepository(db);
  });
  afterAll(async () => {
    await db?.close();
    await cleanup?.();
  });

  const t0 = new Date('2026-01-02T03:04:05.678Z');
  const infraEnv: InfraEnvRecord = {
    id: '3f1d7c1e-7d0a-4f43-9d55-6f1c2f4e0a01',
    name: 'edge',
    clusterId: null,
    openshiftVersion: '4.16',
    cpuArchitecture: 'x86_64',
    imageType: 'full-iso',
    pullSecret: '{"auths":{}}',
    sshAuthorizedKey: '',
    proxy: { http_proxy: 'http://proxy.example:3128' },
    additionalNtpSources: 'ntp.example',
    staticNetworkConfig: null,
    ignitionConfigOverride: '',
    kernelArguments: [{ operation: 'append', value: 'quiet' }],
    additionalTrustBundle: '',
    imageTokenKey: 'k1',
    agentToken: null,
    networkDiscoveryDelaySeconds: null,
    createdAt: t0,
    updatedAt: t0,
  };

  it('an InfraEnv reads back exactly as written, and after an update', async () => {
    await repo.insertInfraEnv(infraEnv);
    expect(await repo.getInfraEnv(infraEnv.id)).toStrictEqual(infraEnv);
    const changed = {
      ...infraEnv,
      name: 'edge-2',
      clusterId: 'c0ffee00-0000-4000-8000-000000000001',
      proxy: null,
      agentToken: 'jwt',
      networkDiscoveryDelaySeconds: 30,
      updatedAt: new Date(t0.getTime() + 1000),
    };
    await repo.updateInfraEnv(changed);
    expect(await repo.getInfraEnv(infraEnv.id)).toStrictEqual(changed);
    expect(await repo.listInfraEnvs({ clusterId: changed.clusterId })).toStrictEqual([changed]);
  });

  it('a host upsert keeps created_at and overwrites the rest', async () => {
    const host: HostRecord = {
      infraEnvId: infraEnv.id,
      id: '9a4b6f0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b',
      status: 'discovering-unbound',
      statusInfo: 'new',
      validationsInfo: '',
      inventory: null,
      requestedHostname: '',
      role: 'auto-assign',
      discoveryAgentVersion: 'v1',
      progress: null,
      hostTimestamp: null,
      checkedInAt: t0,
      registeredAt: t0,
      statusUpdatedAt: t0,
      createdAt: t0,
      updatedAt: t0,
      logsInfo: '',
      logsStartedAt: null,
    };
    await repo.upsertHost(host);
    expect(await repo.getHost(host.infraEnvId, host.id)).toStrictEqual(host);
    const later = new Date(t0.getTime() + 5000);
    const next: HostRecord = {
      ...host,
      status: 'known-unbound',
      inventory: '{"cpu":{}}',
      logsInfo: 'requested',
      logsStartedAt: later,
      progress: { current_stage: 'Starting installation' },
      hostTimestamp: 1_700_000_000,
      createdAt: later,
      updatedAt: later,
    };
    await repo.upsertHost(next);
    expect(await repo.getHost(host.infraEnvId, host.id)).toStrictEqual({ ...next, createdAt: t0 });
  });

  it('events keep optional props absent or present, with their seq', async () => {
    const base = { infraEnvId: infraEnv.id, hostId: null, clusterId: null, severity: 'info' as const, eventTime: t0 };
    await repo.insertEvent({ ...base, name: 'a', message: 'first' });
    await repo.insertEvent({ ...base, name: 'b', message: 'second', props: '{"k":1}' });
    const page = await repo.listEvents({ infraEnvId: infraEnv.id, order: 'ascending' });
    expect(page.events.map(({ seq: _seq, ...e }) => e)).toStrictEqual([
      { ...base, name: 'a', message: 'first' },
      { ...base, name: 'b', message: 'second', props: '{"k":1}' },
    ]);
    expect(page.events[1]!.seq).toBeGreaterThan(page.events[0]!.seq);
  });
});
