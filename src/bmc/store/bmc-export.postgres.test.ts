// BMC records in `bootsmith db export|import` (./dump-tables.ts, src/platform/db/dump.ts) on PostgreSQL: exported without
// their sealed credentials unless asked; with them, the import opens them with the same key only;
// a BMC whose name the target has under another id is left as the target has it; jobs stay behind;
// a huge stored inventory exports whole (row by row: jsonb_agg was quadratic in its size).
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../platform/db/migration-runner.js';
import { SERVICE_DUMP_TABLES, SERVICE_MIGRATIONS } from '../../service-database.js';
import { exportDump, importDump } from '../../platform/db/dump.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';
import { embeddedBackend } from '../../platform/db/test-support/backends.js';
import { BmcRepository } from './bmc-repository.js';
import { CredentialsBox } from './credentials.js';
import type { BmcRecord } from './records.js';

const PASSWORD = 'export-test-pw-9';

describe('BMC records in db export/import', () => {
  const dbs: SqlDatabase[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  async function database(): Promise<SqlDatabase> {
    const storage = await embeddedBackend().create();
    cleanups.push(storage.cleanup);
    const db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
    await migrate(db, SERVICE_MIGRATIONS);
    dbs.push(db);
    return db;
  }
  let source: SqlDatabase;
  const box = new CredentialsBox(randomBytes(32));
  const record = (name: string): BmcRecord => {
    const id = randomUUID();
    return {
      id,
      name,
      address: 'https://10.0.0.9/redfish/v1',
      credentials: box.seal(id, { username: 'root', password: PASSWORD }),
      tlsVerify: 'insecure',
      caPem: null,
      profileOverride: 'supermicro',
      infraEnvId: null,
      bootMode: 'Legacy',
      bootMethod: 'virtual-media',
      eject: 'never',
      inventory: null,
      inventoryAt: null,
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
      updatedAt: new Date('2026-01-01T00:00:00.000Z'),
    };
  };
  const a = record('exp-a');
  beforeAll(async () => {
    source = await database();
    const repo = new BmcRepository(source);
    await repo.insertBmc(a);
    await repo.insertJob(
      {
        id: randomUUID(),
        bmcId: a.id,
        action: 'refresh',
        state: 'queued',
        params: {},
        steps: [],
        error: null,
        infraEnvId: null,
        imageTokenHash: null,
        hostId: null,
        leaseOwner: null,
        leaseExpiresAt: null,
        claims: 0,
        lostLeases: 0,
        createdAt: new Date(),
        startedAt: null,
        updatedAt: new Date(),
        finishedAt: null,
      },
      a.name,
    );
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
    for (const c of cleanups) await c();
  });

  it('leaves the sealed credentials out unless asked, and never holds the password', async () => {
    const plain = await exportDump(source, SERVICE_DUMP_TABLES);
    expect(plain.tables.bmcs).toEqual([
      expect.objectContaining({ name: 'exp-a', credentials: null, profile_override: 'supermicro' }),
    ]);
    const withCredentials = await exportDump(source, SERVICE_DUMP_TABLES, { includeSealed: true });
    expect(withCredentials.tables.bmcs[0]?.credentials).toBe(a.credentials);
    expect(JSON.stringify(withCredentials)).not.toContain(PASSWORD);
    expect(Object.keys(withCredentials.tables)).not.toContain('bmc_jobs');
  });

  it('imports them; the credentials open with the same key; a name the target has is kept', async () => {
    const target = await database();
    const repo = new BmcRepository(target);
    const clash = record('exp-a');
    await repo.insertBmc({ ...clash, address: 'https://target/redfish/v1' });
    const other = record('exp-b');
    await new BmcRepository(source).insertBmc(other);
    const added = await importDump(
      target,
      SERVICE_DUMP_TABLES,
      await exportDump(source, SERVICE_DUMP_TABLES, { includeSealed: true }),
    );
    expect(added.bmcs).toBe(1);
    expect((await repo.getBmcByName('exp-a'))?.address).toBe('https://target/redfish/v1');
    const imported = (await repo.getBmcByName('exp-b'))!;
    expect(box.open(imported.id, imported.name, imported.credentials!)).toEqual({
      username: 'root',
      password: PASSWORD,
    });
    expect(() => new CredentialsBox(randomBytes(32)).open(imported.id, imported.name, imported.credentials!)).toThrow(
      /sealed with BMC credentials key .*, this service has key/,
    );
  });

  it('exports a BMC whose stored inventory is huge (an older service kept 100,000 boot targets) whole', async () => {
    // Before the bounds a BMC could leave such an inventory; the export gathered rows with
    // jsonb_agg, quadratic in their size (600,000 targets: 374 s; per row now: 0.12 s).
    const db = await database();
    const repo = new BmcRepository(db);
    const big = record('exp-big');
    await repo.insertBmc(big);
    const targets = Array.from({ length: 100_000 }, (_v, i) => `T${i}`);
    const inventory = { boot: { allowedTargets: targets } } as unknown as NonNullable<BmcRecord['inventory']>;
    await repo.setInventory(big.id, inventory, new Date());
    const dump = await exportDump(db, SERVICE_DUMP_TABLES);
    expect(dump.tables.bmcs).toHaveLength(1);
    expect((dump.tables.bmcs[0]?.inventory as { boot: { allowedTargets: string[] } }).boot.allowedTargets).toEqual(
      targets,
    );
  });
});
