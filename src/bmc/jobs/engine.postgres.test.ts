// The job engine on a real PostgreSQL against emulated BMCs (test/support/redfish-emulator, TLS,
// virtual guests): jobs run to their end and write steps and events; two replicas on one
// database run each job exactly once; a replica that lost a job's lease stops without writing; a
// stopping replica hands its jobs over at once; a job found with a power call in flight fails
// instead of restarting the host twice; an interrupted idempotent step runs again; a wrong
// password, a BMC that never completes TLS and a refused port each fail their job alone with the
// reason, within the bound the issue sets (60 s), on the real path; no password anywhere; a replica
// whose credentials key is not the database's claims nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type EmulatedBmc,
  emulatedMacs,
  makeTestCertificates,
  startEmulatedBmc,
  startVirtualBmc,
  type TestCertificates,
  VirtualGuest,
} from '../../../test/support/redfish-emulator/index.js';
import { migrate } from '../../platform/db/migration-runner.js';
import { SERVICE_MIGRATIONS } from '../../service-database.js';
import { createRepository, type Repository } from '../../core/db/repository.js';
import { coreDomain } from '../../core/domain.js';
import { openDatabase, type SqlDatabase } from '../../platform/db/sql.js';
import { embeddedBackend } from '../../platform/db/test-support/backends.js';
import type { InfraEnvRecord } from '../../core/model.js';
import { type BmcSide, createBmcSide } from '../bmc-service.js';
import { DEFAULT_BMC_SETTINGS } from '../settings.js';
import { BmcRepository } from '../store/bmc-repository.js';
import type { JobRecord, JobStep } from '../store/records.js';

const PASSWORD = 'engine-test-Passw0rd';
const INSTANT = { retryDelaysMs: [0, 0, 0], sleep: async () => undefined };

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('BMC job engine (PostgreSQL, emulated BMCs)', () => {
  let db: SqlDatabase;
  let core: Repository;
  let cleanup: () => Promise<void>;
  let dir: string;
  let certs: TestCertificates;
  let infraEnv: InfraEnvRecord;
  const sides: BmcSide[] = [];
  const bmcs: EmulatedBmc[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    const storage = await embeddedBackend().create();
    cleanup = storage.cleanup;
    db = await openDatabase({ databaseUrl: storage.databaseUrl!, dataDir: storage.dataDir });
    await migrate(db, SERVICE_MIGRATIONS);
    core = createRepository(db);
    dir = await mkdtemp(path.join(tmpdir(), 'bmc-engine-'));
    certs = makeTestCertificates(dir);
    const now = new Date();
    infraEnv = {
      id: randomUUID(),
      name: 'engine-test',
      clusterId: null,
      openshiftVersion: '4.17',
      cpuArchitecture: 'x86_64',
      imageType: 'full-iso',
      pullSecret: '{}',
      sshAuthorizedKey: '',
      proxy: null,
      additionalNtpSources: '',
      staticNetworkConfig: null,
      ignitionConfigOverride: '',
      kernelArguments: null,
      additionalTrustBundle: '',
      imageTokenKey: Buffer.alloc(32, 7).toString('base64url'),
      createdAt: now,
      updatedAt: now,
      agentToken: null,
      networkDiscoveryDelaySeconds: null,
    };
    await core.insertInfraEnv(infraEnv);
  });
  afterEach(async () => {
    for (const s of sides.splice(0)) await s.close();
    for (const b of bmcs.splice(0)) await b.close();
  });
  afterAll(async () => {
    await db?.close();
    await cleanup?.();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function side(overrides: Partial<Parameters<typeof createBmcSide>[0]> = {}, settings = {}): BmcSide {
    const s = createBmcSide({
      db,
      core: coreDomain(core),
      settings: { ...DEFAULT_BMC_SETTINGS, ...settings },
      dataDir: dir,
      bases: { imageServiceBaseUrl: 'http://127.0.0.1:9/images' },
      imageUrlTtlMs: 3_600_000,
      logger: pino({ level: 'debug' }, { write: (line: string) => logs.push(line) }),
      claimIntervalMs: 50,
      followIntervalMs: 100,
      redfish: INSTANT,
      ...overrides,
    });
    sides.push(s);
    return s;
  }

  async function emulated(
    name: string,
    profile = 'generic',
    options: { password?: string; power?: 'On' | 'Off' } = {},
  ) {
    const { bmc, guest } = await startVirtualBmc({
      name,
      profile,
      username: 'root',
      password: options.password ?? PASSWORD,
      tls: certs,
      macs: emulatedMacs(bmcs.length + 1),
      initialPower: options.power ?? 'Off',
    });
    bmcs.push(bmc);
    return { bmc, guest };
  }

  async function job(id: string): Promise<JobRecord> {
    return (await new BmcRepository(db).getJob(id))!;
  }

  async function finished(id: string, withinMs = 20_000): Promise<JobRecord> {
    return until(`job ${id} to finish`, withinMs, async () => {
      const j = await job(id);
      return j.state === 'succeeded' || j.state === 'failed' || j.state === 'cancelled' ? j : undefined;
    });
  }

  function add(s: BmcSide, name: string, address: string, password = PASSWORD) {
    return s.service.create({
      name,
      address,
      username: 'root',
      password,
      caPem: certs.caPem,
      infraEnvId: infraEnv.id,
    });
  }

  it('a new BMC gets a refresh job: its inventory (serial, model, power, MACs) shows before any boot; steps and events name it', async () => {
    const s = side();
    const { bmc } = await emulated('inv-1', 'dell-idrac', { power: 'On' });
    const view = await add(s, 'inv-1', bmc.systemUrl);
    expect(view.state).toBe('busy');
    const done = await finished(view.last_job!.id);
    expect(done.state).toBe('succeeded');
    expect(done.steps).toEqual([
      expect.objectContaining({ name: 'discover', status: 'done', calls: expect.any(Number) }),
    ]);
    const shown = await s.service.show('inv-1');
    expect(shown).toMatchObject({
      state: 'ready',
      credentials: 'stored',
      profile: { detected: 'dell-idrac', override: null },
      inventory: { power_state: 'On', macs: emulatedMacs(1), system_uuid: bmc.model.uuid },
    });
    expect(shown.inventory?.serial_number).toBeTruthy();
    // the stale iDRAC slot's image shows, redacted of nothing secret (no token in it)
    const events = await core.listEvents({ infraEnvId: infraEnv.id, order: 'ascending' });
    const mine = events.events.filter((e) => JSON.parse(e.props ?? '{}').job_id === done.id);
    expect(mine.map((e) => e.name)).toEqual(['bmc_step_done', 'bmc_job_succeeded']);
    expect(mine[0]?.message).toMatch(/^BMC "inv-1": discover: profile dell-idrac/);
    // The job's one Redfish session is ended with the job (issue 33).
    expect(bmc.model.sessionsCreated).toBe(1);
    await until('the session to be ended', 10_000, async () => (bmc.model.openSessions === 0 ? true : undefined));
  });

  it('an iDRAC 10 (sessions only, Basic refused) refreshes through one session, ended with the job', async () => {
    const s = side();
    const { bmc } = await emulated('idrac10-1', 'dell-idrac10');
    const view = await add(s, 'idrac10-1', bmc.systemUrl);
    const done = await finished(view.last_job!.id);
    expect(done.error).toBeNull();
    expect(done.state).toBe('succeeded');
    expect((await s.service.show('idrac10-1')).profile).toMatchObject({ detected: 'dell-idrac10' });
    expect(bmc.requests.filter((r) => r.status === 401)).toEqual([]);
    expect(bmc.model.sessionsCreated).toBe(1);
    await until('the session to be ended', 10_000, async () => (bmc.model.openSessions === 0 ? true : undefined));
    expect(s.sessions.openSessions()).toBe(0);
  });

  it('a wrong password fails the job at discover, naming the BMC; no password in the job, the events or the log', async () => {
    const s = side();
    const { bmc } = await emulated('wrong-pw', 'generic', { password: 'the-real-one' });
    const view = await add(s, 'wrong-pw', bmc.rootUrl, PASSWORD);
    const done = await finished(view.last_job!.id);
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(
      /^BMC "wrong-pw": discover: the BMC refused the credentials \((GET|POST) \/redfish\/v1.* HTTP 401/,
    );
    expect((await s.service.show('wrong-pw')).state_info).toBe(done.error);
    const rows =
      JSON.stringify(await db.query('SELECT * FROM bmc_jobs')) +
      JSON.stringify(await db.query('SELECT * FROM events')) +
      JSON.stringify(await db.query('SELECT * FROM bmcs'));
    for (const secret of [PASSWORD, Buffer.from(`root:${PASSWORD}`).toString('base64')]) {
      expect(rows).not.toContain(secret);
      expect(logs.join('\n')).not.toContain(secret);
    }
  });

  it('two replicas on one database run each of 8 jobs exactly once', async () => {
    const a = side({ owner: 'replica-a' });
    const b = side({ owner: 'replica-b' });
    const views = [];
    for (let i = 0; i < 8; i++) {
      const { bmc } = await emulated(`pair-${i}`);
      views.push(await add(i % 2 ? a : b, `pair-${i}`, bmc.rootUrl));
    }
    const jobs = await Promise.all(views.map((v) => finished(v.last_job!.id)));
    expect(jobs.map((j) => [j.state, j.claims])).toEqual(jobs.map(() => ['succeeded', 1]));
    // each BMC saw one discovery: the same number of requests as a lone refresh makes (its
    // session's login and logout aside: the logout may still be on its way when the job is done)
    const counts = bmcs
      .slice(-8)
      .map((b) => b.requests.filter((r) => !r.path.startsWith('/redfish/v1/SessionService/Sessions')).length);
    expect(new Set(counts).size).toBe(1);
  });

  it('a replica whose credentials key is not the recorded one claims no job; one with the key runs it', async () => {
    const queuing = side({ runJobs: false });
    const { bmc } = await emulated('other-key-1');
    const view = await add(queuing, 'other-key-1', bmc.rootUrl);
    const otherKey = path.join(dir, 'other.key');
    await writeFile(otherKey, randomBytes(32).toString('base64'));
    side({ owner: 'replica-other-key' }, { bmcCredentialsKeyFile: otherKey });
    await until('the refusal to claim in the log', 10_000, async () =>
      logs.some((l) => l.includes('not claiming jobs on this replica')) ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 500)); // ten more claim rounds
    expect(await job(view.last_job!.id)).toMatchObject({ state: 'queued', claims: 0 });
    expect(logs.filter((l) => l.includes('not claiming jobs on this replica'))).toHaveLength(1);
    side({ owner: 'replica-right-key' });
    const done = await finished(view.last_job!.id);
    expect(done).toMatchObject({ state: 'succeeded', claims: 1, leaseOwner: null });
  });

  it('a job found with a reset in flight fails with the reason; an interrupted eject runs again', async () => {
    const s = side({ runJobs: false });
    const { bmc, guest } = await emulated('resume-1');
    const view = await add(s, 'resume-1', bmc.rootUrl);
    // no engine ran: the refresh stays queued; make it look interrupted mid-reset by a dead replica
    const refresh = await job(view.last_job!.id);
    await db.query(`UPDATE bmc_jobs SET state = 'failed' WHERE id = $1`, [refresh.id]);
    const reset = await s.service.queue('resume-1', { action: 'power-reset' });
    const steps: JobStep[] = [
      { name: 'discover', status: 'done', detail: 'earlier' },
      { name: 'power', status: 'running', detail: '', startedAt: new Date().toISOString() },
    ];
    await db.query(
      `UPDATE bmc_jobs SET state = 'running', steps = $2, lease_owner = 'dead-replica', lease_expires_at = now() - interval '1 s', claims = 1 WHERE id = $1`,
      [reset.id, JSON.stringify(steps)],
    );
    side();
    const failed = await finished(reset.id);
    expect(failed).toMatchObject({ state: 'failed', claims: 2 });
    expect(failed.error).toBe(
      'the service stopped while the power call was in flight; it is not repeated (a second restart would restart the host again): check the host, then start a new job',
    );
    expect(bmc.requests.filter((r) => r.path.endsWith('ComputerSystem.Reset'))).toEqual([]);

    await guest.insertMedia('http://127.0.0.1:9/old.iso').catch(() => undefined);
    bmc.model.slots[1]!.image = 'http://127.0.0.1:9/old.iso';
    bmc.model.slots[1]!.inserted = true;
    const eject = await s.service.queue('resume-1', { action: 'eject' });
    await db.query(
      `UPDATE bmc_jobs SET state = 'running', steps = $2, lease_owner = 'dead-replica', lease_expires_at = now() - interval '1 s', claims = 1 WHERE id = $1`,
      [
        eject.id,
        JSON.stringify([
          { name: 'discover', status: 'done', detail: 'earlier' },
          { name: 'eject', status: 'pending', detail: '' },
        ]),
      ],
    );
    const ejected = await finished(eject.id);
    expect(ejected).toMatchObject({ state: 'succeeded', claims: 2 });
    expect(ejected.steps[1]).toMatchObject({
      name: 'eject',
      status: 'done',
      detail: expect.stringMatching(/^ejected slot\(s\) /),
    });
    expect(bmc.model.slots.every((slot) => !slot.inserted)).toBe(true);
  });

  it('a job whose replicas kept dying while they ran it is not resumed again: it fails naming why', async () => {
    const s = side({ runJobs: false });
    const { bmc } = await emulated('crashing-1');
    const view = await add(s, 'crashing-1', bmc.rootUrl);
    // as after the replica running this refresh died MAX_RESUMES_AFTER_LOST_LEASE times in a row (each
    // restart resumed it, and it took the process down again): the next claim is one lost lease more
    await db.query(
      `UPDATE bmc_jobs SET state = 'running', lease_owner = 'dead-replica', lease_expires_at = now() - interval '1 s',
         claims = 3, lost_leases = 3 WHERE id = $1`,
      [view.last_job!.id],
    );
    side();
    const failed = await finished(view.last_job!.id);
    expect(failed).toMatchObject({ state: 'failed', claims: 4, lostLeases: 4, leaseOwner: null });
    expect(failed.error).toBe(
      "the replica running this job died or stalled 4 times while it was at discover; not resumed again (at most 3 times): see those replicas' logs for why, then start a new job",
    );
    // the BMC was not called again
    expect(bmc.requests).toEqual([]);
    const shown = await s.service.show('crashing-1');
    expect(shown).toMatchObject({ state: 'error', last_job: { lost_leases: 4 } });
  });

  it('a replica that lost the lease stops without writing; a stopping replica releases its jobs at once', async () => {
    const slowSettings = { bmcIsoReadTimeoutMs: 600_000, bmcJobLeaseMs: 600 };
    const a = side({ owner: 'replica-old' }, slowSettings);
    const { bmc } = await emulated('lease-1', 'generic');
    bmc.setFaults({ neverReadsIso: true });
    const view = await add(a, 'lease-1', bmc.rootUrl);
    await finished(view.last_job!.id);
    const boot = await a.service.queue('lease-1', { action: 'boot-discovery' });
    // following: iso-read waits (the BMC never attaches the image)
    await until('the boot to be followed', 20_000, async () =>
      (await job(boot.id)).steps.find((s) => s.name === 'power')?.status === 'done' ? true : undefined,
    );
    // another replica takes it over (as after a long stall of this one)
    await db.query(
      `UPDATE bmc_jobs SET lease_owner = 'replica-new', lease_expires_at = now() + interval '1 hour' WHERE id = $1`,
      [boot.id],
    );
    const before = await job(boot.id);
    await until('replica-old to let go', 10_000, async () => (a.engine.running.includes(boot.id) ? undefined : true));
    const after = await job(boot.id);
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(after.leaseOwner).toBe('replica-new');

    // hand it back to replica-old, then stop it: the lease is released at once for the next replica
    await db.query(`UPDATE bmc_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`, [boot.id]);
    await until('replica-old to take it again', 10_000, async () =>
      a.engine.running.includes(boot.id) ? true : undefined,
    );
    await a.close();
    sides.splice(sides.indexOf(a), 1);
    expect((await job(boot.id)).leaseOwner).toBeNull();
    const b = side({ owner: 'replica-next' }, { ...slowSettings, bmcIsoReadTimeoutMs: 1 });
    const failed = await finished(boot.id);
    expect(b.engine.owner).toBe('replica-next');
    expect(failed.claims).toBe(3);
    expect(failed.error).toBe('the BMC never read the ISO within 0 s of powering the host');
    // the Redfish steps were not repeated by the replicas that resumed the job
    expect(
      bmc.requests.filter((r) => r.path.endsWith('ComputerSystem.Reset') || r.path.endsWith('InsertMedia')).length,
    ).toBe(2);
  });

  it('a cancel reaches the job on the replica that runs it (its heartbeat), a queued job at once, a resumed one at its first boundary', async () => {
    const runner = side({ owner: 'replica-runs' }, { bmcJobLeaseMs: 900 });
    const api = side({ owner: 'replica-api', runJobs: false }); // answers the API, runs nothing
    const { bmc, guest } = await emulated('cancel-1', 'generic');
    bmc.setFaults({ neverReadsIso: true });
    const view = await add(runner, 'cancel-1', bmc.rootUrl);
    await finished(view.last_job!.id);
    // the BMC accepts the insert and never reads the ISO: the boot waits at iso-read
    const boot = await runner.service.queue('cancel-1', { action: 'boot-discovery', eject: 'always' });
    await until('the boot to follow', 20_000, async () =>
      (await job(boot.id)).state === 'following' ? true : undefined,
    );
    expect(await guest.powerState()).toBe('On');
    const asked = await api.service.cancel('cancel-1', boot.id);
    expect(asked.ending).toBe(true);
    const cancelled = await finished(boot.id);
    expect(cancelled).toMatchObject({
      state: 'cancelled',
      error: 'cancelled at iso-read; media ejected (eject always)',
      leaseOwner: null,
    });
    expect(bmc.model.slots.every((s) => !s.inserted)).toBe(true);
    expect((await api.service.cancel('cancel-1', boot.id)).ending).toBe(false);

    // nothing runs jobs: a queued one is cancelled at once, with its event, and never claimed later
    await runner.close();
    sides.splice(sides.indexOf(runner), 1);
    const queued = await api.service.queue('cancel-1', { action: 'power-off' });
    expect(await api.service.cancel('cancel-1', queued.id)).toMatchObject({
      ending: false,
      job: { state: 'cancelled', error: 'cancelled before it started' },
    });
    // a running job marked while no replica held it (its replica died): the next one cancels it first
    const reset = await api.service.queue('cancel-1', { action: 'power-reset' });
    await db.query(
      `UPDATE bmc_jobs SET state = 'running', lease_owner = 'dead-replica', lease_expires_at = now() - interval '1 s', claims = 1 WHERE id = $1`,
      [reset.id],
    );
    expect((await api.service.cancel('cancel-1', reset.id)).ending).toBe(true);
    side({ owner: 'replica-next' });
    const resumed = await finished(reset.id);
    expect(resumed).toMatchObject({ state: 'cancelled', error: 'cancelled at discover', claims: 2 });
    expect((await job(queued.id)).state).toBe('cancelled');
    expect(await guest.powerState()).toBe('On'); // neither the power-off nor the reset reached the host
    const events = await core.listEvents({ infraEnvId: infraEnv.id, order: 'ascending' });
    const cancels = events.events.filter((e) => e.name === 'bmc_job_cancelled').map((e) => e.message);
    expect(cancels).toEqual([
      'BMC "cancel-1": boot-discovery cancelled at iso-read; media ejected (eject always)',
      'BMC "cancel-1": power-off cancelled before it started',
      'BMC "cancel-1": power-reset cancelled at discover',
    ]);
  });

  it('a BMC that never completes TLS, and a refused port, fail their jobs alone within 60 s (the real clocks)', async () => {
    const s = side({ redfish: {} }); // the library's own timeouts and retry delays
    const silent = await startEmulatedBmc({
      name: 'silent',
      profile: 'generic',
      username: 'root',
      password: PASSWORD,
      guest: new VirtualGuest(),
      tls: certs,
      faults: { tlsNeverCompletes: true },
    });
    bmcs.push(silent);
    const refused = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const { bmc: fine } = await emulated('fine');
    const [a, b, c] = await Promise.all([
      add(s, 'silent', silent.rootUrl),
      add(s, 'refused', `https://127.0.0.1:${refused}`),
      add(s, 'fine', fine.rootUrl),
    ]);
    const [tls, port, ok] = (await Promise.all([a, b, c].map((v) => finished(v.last_job!.id, 90_000)))) as [
      JobRecord,
      JobRecord,
      JobRecord,
    ];
    expect(ok.state).toBe('succeeded');
    for (const [j, pattern] of [
      [tls, /^BMC "silent": discover: TLS handshake timed out/],
      [port, /^BMC "refused": discover: cannot connect/],
    ] as const) {
      expect(j.state).toBe('failed');
      expect(j.error).toMatch(pattern);
      const took = j.finishedAt!.getTime() - j.startedAt!.getTime();
      expect(took).toBeLessThan(60_000);
    }
  }, 120_000);
});
