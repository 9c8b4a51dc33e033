// Migration 5 on a database written by an earlier release: hosts in bootsmith's old state names
// (discovering, known, insufficient, disconnected) come out in upstream's unbound names with
// upstream's sentence for known-unbound; other states, other columns and other rows are untouched,
// and the new columns read back as their defaults. On the run's embedded PostgreSQL server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedBackend } from '../../platform/db/test-support/backends.js';
import { CORE_MIGRATIONS } from './migrations.js';
import { migrate } from '../../platform/db/migration-runner.js';
import { createRepository } from './repository.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';

describe('migration 5: unbound host states', () => {
  let db: SqlDatabase | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const s = await embeddedBackend().create();
    cleanup = s.cleanup;
    db = await openDatabase({ dataDir: s.dataDir, databaseUrl: s.databaseUrl! });
  });
  afterAll(async () => {
    await db?.close();
    await cleanup?.();
  });

  it('renames the old discovery states and leaves everything else as it was', async () => {
    await migrate(db!, [CORE_MIGRATIONS.filter((m) => m.version <= 3)]);
    const ie = '3f1d7c1e-7d0a-4f43-9d55-6f1c2f4e0a02';
    await db!.query(
      `INSERT INTO infra_envs (id, name, openshift_version, cpu_architecture, image_type, pull_secret, image_token_key, created_at, updated_at)
       VALUES ($1, 'old', '4.16', 'x86_64', 'full-iso', '{}', 'k', now(), now())`,
      [ie],
    );
    const old: [string, string, string][] = [
      ['00000000-0000-4000-8000-000000000001', 'discovering', 'Waiting for host to send hardware details'],
      ['00000000-0000-4000-8000-000000000002', 'known', 'Host is ready to be installed'],
      [
        '00000000-0000-4000-8000-000000000003',
        'insufficient',
        'Host does not meet the minimum hardware requirements: x',
      ],
      [
        '00000000-0000-4000-8000-000000000004',
        'disconnected',
        'Host has stopped communicating with the installation service',
      ],
      ['00000000-0000-4000-8000-000000000005', 'installing-in-progress', 'Installing'],
    ];
    for (const [id, status, info] of old) {
      await db!.query(
        `INSERT INTO hosts (infra_env_id, id, status, status_info, checked_in_at, registered_at, status_updated_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, now(), now(), now(), now(), now())`,
        [ie, id, status, info],
      );
    }
    expect(await migrate(db!, [CORE_MIGRATIONS])).toEqual(
      CORE_MIGRATIONS.filter((m) => m.version > 3).map((m) => m.version),
    );
    const hosts = await createRepository(db!).listHosts(ie);
    const byId = Object.fromEntries(hosts.map((h) => [h.id, h]));
    expect(old.map(([id]) => [byId[id]!.status, byId[id]!.statusInfo])).toEqual([
      ['discovering-unbound', 'Waiting for host to send hardware details'],
      ['known-unbound', 'Host is ready to be bound to a cluster'],
      ['insufficient-unbound', 'Host does not meet the minimum hardware requirements: x'],
      ['disconnected-unbound', 'Host has stopped communicating with the installation service'],
      ['installing-in-progress', 'Installing'],
    ]);
    expect(hosts.every((h) => h.logsInfo === '' && h.logsStartedAt === null)).toBe(true);
    expect((await createRepository(db!).getInfraEnv(ie))!.networkDiscoveryDelaySeconds).toBeNull();
  });
});
