// The BMC tables on a real PostgreSQL (the run's embedded server, and TEST_DATABASE_URL when set):
// records round-trip through the column maps, a name is unique, one queued or running job per BMC
// is the database's own constraint, two replicas claiming at once never take the same job, a lease
// that expired is taken over and the old owner's writes are refused, reads are kept per replica.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../errors.js';
import { migrate } from '../../platform/db/migration-runner.js';
import { SERVICE_MIGRATIONS } from '../../service-database.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { BmcRepository } from './bmc-repository.js';
import type { BmcRecord, JobRecord } from './records.js';

function bmc(name: string, overrides: Partial<BmcRecord> = {}): BmcRecord {
  const now = new Date('2026-01-02T03:04:05.000Z');
  return {
    id: randomUUID(),
    name,
    address: `https://10.0.0.1/redfish/v1`,
    credentials: 'bmc1.sealed',
    tlsVerify: 'system',
    caPem: null,
    profileOverride: null,
    infraEnvId: null,
    bootMode: 'UEFI',
    bootMethod: null,
    eject: 'auto',
    inventory: null,
    inventoryAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

function job(bmcId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  const now = new Date();
  return {
    id: randomUUID(),
    bmcId,
    action: 'refresh',
    state: 'queued',
    params: {},
    steps: [{ name: 'discover', status: 'pending', detail: '' }],
    error: null,
    infraEnvId: null,
    imageTokenHash: null,
    hostId: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    claims: 0,
    lostLeases: 0,
    createdAt: now,
    startedAt: null,
    updatedAt: now,
    finishedAt: null,
    ...overrides,
  };
}

for (const backend of backends()) {
  describe(`BMC tables on ${backend.name}`, () => {
    let db: SqlDatabase;
    let other: SqlDatabase;
    let repo: BmcRepository;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      const storage = await backend.create();
      cleanup = storage.cleanup;
      db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
      // a second pool: another replica on the same database
      other = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
      await migrate(db, SERVICE_MIGRATIONS);
      repo = new BmcRepository(db);
    });
    afterAll(async () => {
      await db?.close();
      await other?.close();
      await cleanup?.();
    });

    it('stores, lists, updates and deletes BMC records; a name is unique', async () => {
      const a = bmc('rack1-a', {
        inventory: { macs: ['52:54:00:00:00:01'] } as never,
        inventoryAt: new Date('2026-01-02T03:04:06.000Z'),
        caPem: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n',
        tlsVerify: 'ca',
      });
      await repo.insertBmc(a);
      expect(await repo.getBmc(a.id)).toEqual(a);
      expect(await repo.getBmcByName('rack1-a')).toEqual(a);
      await expect(repo.insertBmc(bmc('rack1-a'))).rejects.toThrow(ConflictError);
      await expect(repo.insertBmc(bmc('rack1-a'))).rejects.toThrow('a BMC named "rack1-a" exists already');
      const b = bmc('rack1-b');
      await repo.insertBmc(b);
      await expect(repo.updateBmc({ ...b, name: 'rack1-a' })).rejects.toThrow(ConflictError);
      await repo.updateBmc({ ...b, eject: 'never', bootMode: 'Legacy' });
      expect((await repo.getBmc(b.id))?.eject).toBe('never');
      expect((await repo.listBmcs()).map((r) => r.name)).toEqual(expect.arrayContaining(['rack1-a', 'rack1-b']));
      await repo.setInventory(b.id, { macs: ['aa'] } as never, new Date('2026-01-03T00:00:00.000Z'));
      expect((await repo.getBmc(b.id))?.inventory).toEqual({ macs: ['aa'] });
      expect(await repo.deleteBmc(b.id)).toBe(true);
      expect(await repo.deleteBmc(b.id)).toBe(false);
      expect(await repo.getBmc(b.id)).toBeUndefined();
    });

    it('refuses a second queued or running job of a BMC, naming the BMC; a finished one does not hold it', async () => {
      const b = bmc(`one-job-${randomUUID().slice(0, 8)}`);
      await repo.insertBmc(b);
      const first = job(b.id, { action: 'boot-discovery' });
      await repo.insertJob(first, b.name);
      const refused = await repo.insertJob(job(b.id), b.name).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ConflictError);
      expect((refused as Error).message).toMatch(
        new RegExp(`BMC "${b.name}" has a queued job already \\(boot-discovery ${first.id}.*one job per BMC at a time`),
      );
      // from another replica at the same time: still one
      const results = await Promise.allSettled([
        new BmcRepository(other).insertJob(job(b.id), b.name),
        repo.insertJob(job(b.id), b.name),
      ]);
      expect(results.every((r) => r.status === 'rejected')).toBe(true);
      const [claimed] = await repo
        .claimJobs('replica-a', 100, 30_000)
        .then((all) => all.filter((j) => j.bmcId === b.id));
      expect(claimed?.id).toBe(first.id);
      expect(claimed?.state).toBe('running');
      expect(
        await repo.saveJob(
          'replica-a',
          first.id,
          { ...claimed!, state: 'failed', error: 'x', finishedAt: new Date() },
          new Date(),
        ),
      ).toBe(true);
      const after = await repo.getJob(first.id);
      expect(after).toMatchObject({ state: 'failed', leaseOwner: null, error: 'x' });
      await repo.insertJob(job(b.id), b.name); // the BMC is free again
    });

    it("a BMC's last job is its active one, even beside a finished job of the same instant; else the last to end", async () => {
      const b = bmc(`last-job-${randomUUID().slice(0, 8)}`);
      await repo.insertBmc(b);
      const at = new Date('2026-03-04T05:06:07.000Z');
      const later = (s: number) => new Date(at.getTime() + s * 1_000);
      // ids decide a tie otherwise: make the finished job's id sort first
      const done = job(b.id, {
        id: `00000000${randomUUID().slice(8)}`,
        state: 'failed',
        createdAt: at,
        finishedAt: at,
      });
      const queued = job(b.id, { id: `ffffffff${randomUUID().slice(8)}`, createdAt: at });
      await repo.insertJob(done, b.name);
      await repo.insertJob(queued, b.name);
      expect((await repo.lastJobs([b.id])).get(b.id)?.id).toBe(queued.id);
      await repo.failQueued(queued.id, 'x', later(1));
      const newer = job(b.id, { state: 'succeeded', createdAt: later(1), finishedAt: later(2) });
      await repo.insertJob(newer, b.name);
      expect((await repo.lastJobs([b.id])).get(b.id)?.id).toBe(newer.id);
      // a following boot is shown while nothing holds the BMC; a refresh beside it while it runs
      const following = job(b.id, { action: 'boot-discovery', state: 'following', createdAt: later(3) });
      await repo.insertJob(following, b.name);
      expect((await repo.lastJobs([b.id])).get(b.id)?.id).toBe(following.id);
      const beside = job(b.id, { state: 'running', createdAt: later(4) });
      await repo.insertJob(beside, b.name);
      expect((await repo.lastJobs([b.id])).get(b.id)?.id).toBe(beside.id);
      // ended: the one that ended last, though queued first
      await db.query(`UPDATE bmc_jobs SET state = 'succeeded', finished_at = $2 WHERE id = $1`, [beside.id, later(5)]);
      await db.query(`UPDATE bmc_jobs SET state = 'cancelled', finished_at = $2 WHERE id = $1`, [
        following.id,
        later(6),
      ]);
      expect((await repo.lastJobs([b.id])).get(b.id)?.id).toBe(following.id);
    });

    it('a following job holds nothing: a job beside it is admitted by the index; it takes the BMC again only when free', async () => {
      const b = bmc(`follow-${randomUUID().slice(0, 8)}`);
      await repo.insertBmc(b);
      const boot = job(b.id, { action: 'boot-discovery' });
      await repo.insertJob(boot, b.name);
      expect((await repo.claimJobs('replica-f', 1000, 30_000)).map((j) => j.id)).toContain(boot.id);
      const claimed = (await repo.getJob(boot.id))!;
      expect(await repo.follow('replica-f', b.id, boot.id, claimed, new Date())).toBe(true);
      expect((await repo.getJob(boot.id))?.state).toBe('following');
      const refresh = job(b.id);
      await repo.insertJob(refresh, b.name);
      expect(await repo.holdAgain('replica-f', boot.id, new Date())).toBe('busy');
      expect(await repo.holdAgain('replica-other', boot.id, new Date())).toBe('lost');
      // a following job whose lease expired is claimed again as following, beside the queued refresh
      await db.query(`UPDATE bmc_jobs SET lease_expires_at = now() - interval '1 s' WHERE id = $1`, [boot.id]);
      const again = await repo.claimJobs('replica-g', 1000, 30_000);
      expect(again.find((j) => j.id === boot.id)?.state).toBe('following');
      expect(again.find((j) => j.id === refresh.id)?.state).toBe('running');
      await db.query(`UPDATE bmc_jobs SET state = 'succeeded' WHERE id = $1`, [refresh.id]);
      expect(await repo.holdAgain('replica-g', boot.id, new Date())).toBe('held');
      expect((await repo.getJob(boot.id))?.state).toBe('running');
      // a cancel mark: once, on a running job only
      expect(await repo.requestCancel(boot.id, new Date())).toBe(true);
      expect(await repo.requestCancel(boot.id, new Date())).toBe(false);
      expect([...(await repo.cancelRequested([boot.id, refresh.id]))]).toEqual([boot.id]);
    });

    it('two replicas claiming at once take each job exactly once', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const b = bmc(`claim-${i}-${randomUUID().slice(0, 8)}`);
        await repo.insertBmc(b);
        const j = job(b.id);
        await repo.insertJob(j, b.name);
        ids.push(j.id);
      }
      const a = new BmcRepository(db);
      const c = new BmcRepository(other);
      const rounds = await Promise.all([
        a.claimJobs('replica-a', 7, 30_000),
        c.claimJobs('replica-c', 7, 30_000),
        a.claimJobs('replica-a', 7, 30_000),
        c.claimJobs('replica-c', 7, 30_000),
      ]);
      const taken = rounds.flat().filter((j) => ids.includes(j.id));
      expect(taken.map((j) => j.id).sort()).toEqual([...ids].sort());
      expect(new Set(taken.map((j) => j.id)).size).toBe(ids.length);
      // nothing left for anybody while the leases hold
      expect((await a.claimJobs('replica-z', 100, 30_000)).filter((j) => ids.includes(j.id))).toEqual([]);
      // each owner renews only its own
      const ofC = taken.filter((j) => j.leaseOwner === 'replica-c').map((j) => j.id);
      expect([...(await c.renewLeases('replica-c', ids, 30_000))].sort()).toEqual(ofC.sort());
    });

    it('a lease that expired is taken over; the old owner can no longer write', async () => {
      const b = bmc(`lease-${randomUUID().slice(0, 8)}`);
      await repo.insertBmc(b);
      const j = job(b.id);
      await repo.insertJob(j, b.name);
      const [mine] = (await repo.claimJobs('replica-old', 100, 30_000)).filter((x) => x.id === j.id);
      expect(mine).toMatchObject({ claims: 1, lostLeases: 0 });
      // the old owner stalls past its lease (moved into the past here rather than waited for)
      await db.query(`UPDATE bmc_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [j.id]);
      const [taken] = (await new BmcRepository(other).claimJobs('replica-new', 100, 30_000)).filter(
        (x) => x.id === j.id,
      );
      // taken from an owner whose lease expired: a lost lease (it died or stalled running it)
      expect(taken).toMatchObject({ leaseOwner: 'replica-new', claims: 2, lostLeases: 1, state: 'running' });
      expect(await repo.saveJob('replica-old', j.id, { ...mine!, steps: [] }, new Date())).toBe(false);
      expect((await repo.renewLeases('replica-old', [j.id], 30_000)).size).toBe(0);
      expect(await repo.saveJob('replica-new', j.id, { ...taken!, steps: [] }, new Date())).toBe(true);
      expect(await repo.releaseLease('replica-new', j.id)).toBe(true);
      expect((await repo.getJob(j.id))?.leaseOwner).toBeNull();
      // a released job (its replica stopped cleanly) is taken without counting a lost lease
      const [again] = (await repo.claimJobs('replica-next', 100, 30_000)).filter((x) => x.id === j.id);
      expect(again).toMatchObject({ leaseOwner: 'replica-next', claims: 3, lostLeases: 1 });
    });

    it('keeps reads per replica, finds a job by its token hash, forgets both with the BMC', async () => {
      const b = bmc(`reads-${randomUUID().slice(0, 8)}`);
      await repo.insertBmc(b);
      const j = job(b.id, { action: 'boot-discovery', imageTokenHash: `hash-${b.id}` });
      await repo.insertJob(j, b.name);
      expect(await repo.jobOfToken(`hash-${b.id}`)).toEqual({ id: j.id, state: 'queued' });
      expect(await repo.jobOfToken('unknown')).toBeUndefined();
      const reads = {
        jobId: j.id,
        replica: 'r1',
        firstReadAt: new Date('2026-01-01T00:00:00.000Z'),
        lastReadAt: new Date('2026-01-01T00:00:05.000Z'),
        heads: 1,
        requests: 3,
        bytes: 6_000_000_000,
        ranges: [[0, 2048] as [number, number]],
        bootExtents: [[4096, 8192] as [number, number]],
        size: 7_000_000_000,
        addresses: ['127.0.0.1'],
      };
      await repo.putReads(reads);
      await repo.putReads({ ...reads, requests: 4 });
      await repo.putReads({ ...reads, replica: 'r2' });
      expect(await repo.readsOf(j.id)).toEqual([
        { ...reads, requests: 4 },
        { ...reads, replica: 'r2' },
      ]);
      expect(await repo.deleteBmc(b.id)).toBe(true);
      expect(await repo.getJob(j.id)).toBeUndefined();
      expect(await repo.readsOf(j.id)).toEqual([]);
      await repo.putReads(reads); // the job is gone: nothing to account for, no error
      expect(await repo.readsOf(j.id)).toEqual([]);
    });

    it('records one credentials key id, replaced only while no BMC holds credentials', async () => {
      const name = `key-id-test-${randomUUID().slice(0, 8)}`;
      expect(await repo.recordKeyId(name, 'first')).toBe('first');
      expect(await repo.recordKeyId(name, 'second')).toBe('first');
      // BMCs with credentials exist in this database (the tests above): no replacement
      expect(await repo.replaceKeyIdIfUnused(name, 'second')).toBe(false);
    });
  });
}
