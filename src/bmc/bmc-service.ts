// The BMC side's operations, one function per thing the API and the CLI do: create, update,
// delete, list and show BMC records; queue a job; check an InfraEnv's mac_interface_map against
// what its BMCs report. And its assembly: the credentials keyring, the job engine, the follow
// poller and the read tracker of this replica (createBmcSide).
//
// Rules: a name is unique (the database's); credentials are sealed before they are stored and
// never returned; a new BMC gets a `refresh` job at once (its inventory shows before the host
// ever boots, and a wrong password surfaces as that job's failure naming the BMC); a BMC with a
// job not yet ended is not deleted (409) unless forced; a job is queued only as ./jobs/admission.ts
// admits it (one job holding a BMC; a refresh or an eject beside a boot that follows its host),
// decided under the BMC row's lock; a boot job needs an InfraEnv (the request's or the BMC's) that
// exists; the newest JOBS_KEPT_PER_BMC finished jobs are kept. A cancel ends a queued job at once
// (an event says so) and marks a running or following one, which its runner ends at its next step
// boundary; cancelling again, or a job that ended, changes nothing.
// Does NOT: parse HTTP (./api/), talk to a BMC (./jobs/ does, through ./redfish/).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import type { SqlDatabase } from '../platform/db/sql.js';
import { isUuid } from '../uuid.js';
import type { CorePort, MacInterfaceMapEntry } from './core-port.js';
import type { BmcCreate, BmcPatch, JobRequest } from './bmc-input.js';
import { checkBootMethod, effectiveBootMethod } from './boot-method.js';
import { admitJob } from './jobs/admission.js';
import { jobEvent } from './jobs/job-event.js';
import { renderBmc, renderJob, type BmcView, type JobView } from './bmc-view.js';
import { BmcSessions, type RedfishClientOptions } from './redfish/index.js';
import type { BmcSettings } from './settings.js';
import { BmcJobEngine } from './jobs/engine.js';
import { FollowPoller } from './jobs/follow-poller.js';
import { normalizeMac } from './jobs/host-match.js';
import { initialSteps } from './jobs/job-steps.js';
import type { ImageBases } from './jobs/job-token.js';
import { FOLLOW_INTERVAL_MS, JOBS_KEPT_PER_BMC } from './jobs/limits.js';
import type { TokenReadReport } from '../image-ports/token-read-observer.js';
import { ReadTracker } from './jobs/read-tracker.js';
import { BmcRepository } from './store/bmc-repository.js';
import { CredentialsKeyring, KEY_ID_SERVICE_KEY } from './store/credentials.js';
import { type BmcRecord, isFinished, type JobRecord } from './store/records.js';

/** Jobs a BMC's listing returns at most. */
export const MAX_JOBS_LISTED = JOBS_KEPT_PER_BMC;

export class BmcService {
  constructor(
    readonly repo: BmcRepository,
    private readonly core: CorePort,
    private readonly keyring: CredentialsKeyring,
    private readonly now: () => Date,
    /** Tells this replica's engine a job is waiting (it would find it within a second anyway). */
    private readonly onQueued: () => void = () => undefined,
    /** Tells this replica's engine a job is to be cancelled (another replica's heartbeat reads the mark). */
    private readonly onCancel: (jobId: string) => void = () => undefined,
  ) {}

  /** A BMC by id or by name; 404 naming it otherwise. */
  async find(ref: string): Promise<BmcRecord> {
    const found = isUuid(ref) ? await this.repo.getBmc(ref.toLowerCase()) : await this.repo.getBmcByName(ref);
    if (!found) throw new NotFoundError(`no BMC ${JSON.stringify(ref)}`, { bmc: ref });
    return found;
  }

  private async checkInfraEnv(id: string | null | undefined): Promise<void> {
    if (id && !(await this.core.infraEnvExists(id)))
      throw new BadRequestError(`infra_env_id: InfraEnv ${id} does not exist`, { infraEnvId: id });
  }

  async create(input: BmcCreate): Promise<BmcView> {
    await this.checkInfraEnv(input.infraEnvId);
    const box = await this.keyring.get();
    const now = this.now();
    const id = randomUUID();
    const record: BmcRecord = {
      id,
      name: input.name,
      address: input.address,
      credentials: box.seal(id, { username: input.username, password: input.password }),
      tlsVerify: input.insecure ? 'insecure' : input.caPem ? 'ca' : 'system',
      caPem: input.caPem ?? null,
      profileOverride: input.profile ?? null,
      infraEnvId: input.infraEnvId ?? null,
      bootMode: input.bootMode ?? 'UEFI',
      bootMethod: input.bootMethod ?? null,
      eject: input.eject ?? 'auto',
      inventory: null,
      inventoryAt: null,
      createdAt: now,
      updatedAt: now,
    };
    checkBootMethod(record, record.bootMethod ?? undefined);
    const job = this.newJob(record, { action: 'refresh' });
    await this.repo.transaction(async (repo) => {
      await repo.insertBmc(record);
      await repo.insertJob(job, record.name);
    });
    this.onQueued();
    return renderBmc(record, job);
  }

  async update(ref: string, patch: BmcPatch): Promise<BmcView> {
    const current = await this.find(ref);
    if (patch.infraEnvId !== undefined) await this.checkInfraEnv(patch.infraEnvId);
    const next: BmcRecord = { ...current, updatedAt: this.now() };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.address !== undefined) next.address = patch.address;
    if (patch.username !== undefined || patch.password !== undefined) {
      const box = await this.keyring.get();
      let username = patch.username;
      let password = patch.password;
      if (username === undefined || password === undefined) {
        if (!current.credentials)
          throw new BadRequestError('username and password: this BMC has no credentials yet; give both', {
            bmc: current.name,
          });
        const old = box.open(current.id, current.name, current.credentials);
        username ??= old.username;
        password ??= old.password;
      }
      next.credentials = box.seal(current.id, { username, password });
    }
    if (patch.insecure !== undefined || patch.caPem !== undefined) {
      const caPem = patch.caPem !== undefined ? patch.caPem : patch.insecure ? null : current.caPem;
      const insecure = patch.insecure ?? (patch.caPem ? false : current.tlsVerify === 'insecure');
      if (insecure && caPem) throw new BadRequestError('insecure: give either insecure or ca_pem, not both');
      next.caPem = caPem;
      next.tlsVerify = insecure ? 'insecure' : caPem ? 'ca' : 'system';
    }
    if (patch.profile !== undefined) next.profileOverride = patch.profile;
    if (patch.infraEnvId !== undefined) next.infraEnvId = patch.infraEnvId;
    if (patch.bootMode !== undefined) next.bootMode = patch.bootMode;
    if (patch.bootMethod !== undefined) next.bootMethod = patch.bootMethod;
    if (patch.eject !== undefined) next.eject = patch.eject;
    checkBootMethod(next, next.bootMethod ?? undefined); // 422 before anything is stored
    await this.repo.updateBmc(next);
    return renderBmc(next, (await this.repo.lastJobs([next.id])).get(next.id));
  }

  async remove(ref: string, force: boolean): Promise<void> {
    const bmc = await this.find(ref);
    const [active] = await this.repo.activeJobs(bmc.id);
    if (active && !force) {
      throw new ConflictError(
        `BMC ${JSON.stringify(bmc.name)} has a ${active.state} ${active.action} job (${active.id}); wait for it or remove with force`,
        { bmc: bmc.name, jobId: active.id },
      );
    }
    // Its jobs go with it (the runner of one still running stops at its next write).
    await this.repo.deleteBmc(bmc.id);
  }

  async list(filter: { infraEnvId?: string } = {}): Promise<BmcView[]> {
    const bmcs = await this.repo.listBmcs(filter);
    const last = await this.repo.lastJobs(bmcs.map((b) => b.id));
    return bmcs.map((b) => renderBmc(b, last.get(b.id)));
  }

  async show(ref: string): Promise<BmcView> {
    const bmc = await this.find(ref);
    return renderBmc(bmc, (await this.repo.lastJobs([bmc.id])).get(bmc.id));
  }

  async jobs(ref: string): Promise<JobView[]> {
    const bmc = await this.find(ref);
    return (await this.repo.listJobs(bmc.id, MAX_JOBS_LISTED)).map(renderJob);
  }

  async job(ref: string, jobId: string): Promise<JobView> {
    const { job } = await this.findJob(ref, jobId);
    return renderJob(job);
  }

  private async findJob(ref: string, jobId: string): Promise<{ bmc: BmcRecord; job: JobRecord }> {
    const bmc = await this.find(ref);
    const job = isUuid(jobId) ? await this.repo.getJob(jobId.toLowerCase()) : undefined;
    if (!job || job.bmcId !== bmc.id)
      throw new NotFoundError(`BMC ${JSON.stringify(bmc.name)} has no job ${JSON.stringify(jobId)}`);
    return { bmc, job };
  }

  /**
   * Cancels a job: a queued one at once; a running or following one at its next step boundary
   * (`ending`: the answer is the job as it stands, the caller follows it to its end). A job that
   * ended already, or whose cancel was asked already, is returned as it is.
   */
  async cancel(ref: string, jobId: string): Promise<{ job: JobView; ending: boolean }> {
    const { bmc, job } = await this.findJob(ref, jobId);
    if (job.state === 'queued') {
      const at = this.now();
      const words = 'cancelled before it started';
      if (await this.repo.cancelQueued(job.id, words, at)) {
        await this.core
          .insertEvent(jobEvent(job, bmc, 'bmc_job_cancelled', `${job.action} ${words}`, undefined, at))
          .catch(() => undefined); // the cancel stands; its event is best effort, as every job event
      }
      // else a replica claimed it meanwhile: cancelled below as a running one
    }
    await this.repo.requestCancel(job.id, this.now()); // nothing when it ended or was marked already
    const current = (await this.repo.getJob(job.id)) ?? job;
    if (!isFinished(current.state)) this.onCancel(job.id);
    return { job: renderJob(current), ending: !isFinished(current.state) };
  }

  /** Queues a job; 409 naming the BMC and the job in the way when ./jobs/admission.ts refuses it. */
  async queue(ref: string, request: JobRequest): Promise<JobView> {
    const bmc = await this.find(ref);
    if (request.action === 'boot-discovery') {
      const infraEnvId = request.infraEnvId ?? bmc.infraEnvId;
      if (!infraEnvId)
        throw new BadRequestError(
          `BMC ${JSON.stringify(bmc.name)} has no InfraEnv to boot: give infra_env_id, or attach one to the BMC`,
          { bmc: bmc.name },
        );
      await this.checkInfraEnv(infraEnvId);
      checkBootMethod(bmc, effectiveBootMethod(bmc, request.bootMethod), request.bootMode ?? bmc.bootMode);
    }
    const job = this.newJob(bmc, request);
    await this.repo.transaction(async (repo) => {
      // Under the BMC row's lock, as a boot job's move to following (repository `follow`).
      if (!(await repo.getBmc(bmc.id, { forUpdate: true })))
        throw new NotFoundError(`no BMC ${JSON.stringify(ref)}`, { bmc: ref });
      const admission = admitJob(bmc.name, request.action, await repo.activeJobs(bmc.id));
      if (!admission.admitted) throw new ConflictError(admission.reason, { bmc: bmc.name, jobId: admission.jobId });
      await repo.insertJob(job, bmc.name);
      await repo.trimJobs(bmc.id, JOBS_KEPT_PER_BMC);
    });
    this.onQueued();
    return renderJob(job);
  }

  private newJob(bmc: BmcRecord, request: JobRequest): JobRecord {
    const now = this.now();
    return {
      id: randomUUID(),
      bmcId: bmc.id,
      action: request.action,
      state: 'queued',
      params:
        request.action === 'boot-discovery'
          ? {
              bootMode: request.bootMode ?? bmc.bootMode,
              ...(request.bootMethod ? { bootMethod: request.bootMethod } : {}),
              eject: request.eject ?? bmc.eject,
            }
          : {},
      steps: initialSteps(request.action),
      error: null,
      infraEnvId: request.action === 'boot-discovery' ? (request.infraEnvId ?? bmc.infraEnvId) : bmc.infraEnvId,
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
    };
  }

  /**
   * Which InfraEnv the machine with this MAC (lower case, colons) or System UUID (either byte
   * order) boots, by the BMCs bound to one whose last inventory reported it (the PXE front door's
   * question, src/assembly/bmc-wing.ts); undefined when no BMC did.
   */
  async machineOf(
    mac: string | undefined,
    uuids: readonly string[],
  ): Promise<{ infraEnvId: string; bmcName: string; by: 'mac' | 'system-uuid' } | undefined> {
    const [first] = await this.repo.bmcsWithIdentity(mac, uuids, 1);
    return first && { infraEnvId: first.infraEnvId, bmcName: first.name, by: first.by };
  }

  /**
   * An InfraEnv's static network config against the MACs its BMCs reported: a 400 naming the first
   * MAC no BMC of the InfraEnv has. No check while none of its BMCs has reported MACs.
   */
  async checkMacInterfaceMap(infraEnvId: string, entries: readonly MacInterfaceMapEntry[] | null): Promise<void> {
    if (!entries || entries.length === 0) return;
    const bmcs = (await this.repo.listBmcs({ infraEnvId })).filter((b) => (b.inventory?.macs.length ?? 0) > 0);
    if (bmcs.length === 0) return;
    const known = new Set(bmcs.flatMap((b) => b.inventory!.macs.map(normalizeMac)));
    for (const [i, entry] of entries.entries()) {
      for (const m of entry.mac_interface_map ?? []) {
        if (!known.has(normalizeMac(m.mac_address))) {
          throw new BadRequestError(
            `static_network_config[${i}].mac_interface_map: MAC ${m.mac_address} is not reported by any BMC of this InfraEnv ` +
              `(${bmcs.map((b) => b.name).join(', ')}); check it, or refresh the BMCs (bootsmith bmc refresh)`,
            { mac: m.mac_address },
          );
        }
      }
    }
  }
}

/** The BMC side of one replica, assembled. */
export interface BmcSide {
  service: BmcService;
  engine: BmcJobEngine;
  /** The image side's hook: every answered `/bytoken/` ISO request. */
  reads: { report(report: TokenReadReport): void };
  /** The Redfish sessions this replica holds, one per BMC in use (ended by close()). */
  sessions: BmcSessions;
  close(): Promise<void>;
}

export interface BmcSideOptions {
  db: SqlDatabase;
  /** The core's domain: InfraEnvs, their hosts, short URL tokens, events (./core-port.ts). */
  core: CorePort;
  settings: BmcSettings;
  dataDir: string;
  bases: ImageBases;
  imageUrlTtlMs: number;
  logger: Logger;
  now?: () => Date;
  /** Run jobs here (default true; an image-only replica does not). */
  runJobs?: boolean;
  /** Engine and poller clocks, and Redfish waits (tests shorten them). */
  claimIntervalMs?: number;
  followIntervalMs?: number;
  readsFlushIntervalMs?: number;
  redfish?: Partial<Pick<RedfishClientOptions, 'timeouts' | 'retryDelaysMs' | 'sleep'>>;
  owner?: string;
}

export function createBmcSide(options: BmcSideOptions): BmcSide {
  const logger = options.logger.child({ component: 'bmc' });
  const now = options.now ?? (() => new Date());
  const repo = new BmcRepository(options.db);
  const keyring = new CredentialsKeyring({
    dataDir: options.dataDir,
    keyFile: options.settings.bmcCredentialsKeyFile,
    recordKeyId: (keyId) => repo.recordKeyId(KEY_ID_SERVICE_KEY, keyId),
    replaceKeyIdIfUnused: (keyId) => repo.replaceKeyIdIfUnused(KEY_ID_SERVICE_KEY, keyId),
  });
  const sessions = new BmcSessions();
  const poller = new FollowPoller(repo, options.core, options.followIntervalMs ?? FOLLOW_INTERVAL_MS);
  const engine = new BmcJobEngine({
    repo,
    jobDeps: {
      core: options.core,
      keyring,
      settings: options.settings,
      bases: options.bases,
      imageUrlTtlMs: options.imageUrlTtlMs,
      poller,
      sessions,
      ...(options.redfish ? { redfish: options.redfish } : {}),
      logger,
      now,
    },
    maxRunning: options.settings.bmcJobsMaxRunning,
    leaseMs: options.settings.bmcJobLeaseMs,
    ...(options.claimIntervalMs !== undefined ? { claimIntervalMs: options.claimIntervalMs } : {}),
    ...(options.owner ? { owner: options.owner } : {}),
    logger,
  });
  const tracker = new ReadTracker(repo, engine.owner, logger, options.readsFlushIntervalMs);
  const runJobs = options.runJobs !== false;
  const service = new BmcService(
    repo,
    options.core,
    keyring,
    now,
    () => {
      if (runJobs) engine.wake();
    },
    (jobId) => engine.cancel(jobId),
  );
  if (runJobs) engine.start();
  return {
    service,
    engine,
    reads: tracker,
    sessions,
    async close() {
      await engine.stop();
      // After the jobs: a job still in a call when STOP_WAIT_MS ran out gets no new session.
      await sessions.stop();
      poller.close();
      await tracker.close();
    },
  };
}
