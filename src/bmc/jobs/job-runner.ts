// Runs one claimed job to its end (or until its replica stops or loses the lease): opens the BMC's
// credentials for one Redfish client, runs the action's Redfish steps (phase 1's runBootDiscovery
// for a boot), then, for a boot, follows it (follow-plan.ts) to registration and the eject.
//
// Every step is written to the job row as it ends (lease-guarded: a replica that lost the job
// writes nothing and stops) and recorded as an InfraEnv event naming the BMC, the job and, once
// known, the host; what a step observed of the BMC (power, media, boot override) goes into the
// BMC's stored inventory at once (./observed-state.ts). Where it resumes is ./job-steps.ts's
// resumePlan; a power call that may restart the host is marked `running` before it is sent (in
// the same write that ends the step before it).
// A boot job lets its BMC go once its Redfish steps are done (state `following`: a refresh or an
// eject may run beside it) and takes it again to eject. While a followed step waits, the step is
// `running` with what it waits for and until when (./follow-plan.ts's words).
// A boot by UEFI HTTP Boot (the BMC's boot_method, or auto's choice: ../redfish/boot-discovery.ts)
// is followed the same way; its eject-media step clears the boot override instead of ejecting.
// A cancel (asked through the API, seen here or by the engine's heartbeat) ends the job at its next
// step boundary as `cancelled`, ejecting what it inserted when ./eject-policy.ts says so.
// Failures end the job with the step's message, which names the BMC and the step (RedfishError);
// anything else is a bug: the job fails with "internal error" and the error is logged. A job taken
// over from dead or stalled replicas more than MAX_RESUMES_AFTER_LOST_LEASE times fails at once.
// Does NOT: claim, heartbeat or schedule (./engine.ts), decide the followed steps
// (./follow-plan.ts), or ever put a password, a token or a full ISO URL into a step, an event or a log.
import type { Logger } from 'pino';
import { redactUrl } from '../../redact.js';
import {
  type BmcInventory,
  type BmcSessions,
  type BootDiscoveryStep,
  RedfishClient,
  type RedfishClientOptions,
  RedfishError,
  runBootDiscovery,
  type StepResult,
} from '../redfish/index.js';
import type { CorePort } from '../core-port.js';
import type { BmcSettings } from '../settings.js';
import type { BmcRepository } from '../store/bmc-repository.js';
import type { CredentialsKeyring } from '../store/credentials.js';
import type { BmcRecord, JobRecord, JobStep } from '../store/records.js';
import { cancelEjectDecision, ejectDecision } from './eject-policy.js';
import { decideFollow, type FollowDecision } from './follow-plan.js';
import type { FollowPoller } from './follow-poller.js';
import { matchHost } from './host-match.js';
import { jobEvent, type JobEventName } from './job-event.js';
import { FOLLOW_STEPS, type FollowStep, isBootDiscoveryStep, resumePlan } from './job-steps.js';
import { type ImageBases, jobIsoUrls, jobToken } from './job-token.js';
import { HOLD_WAIT_MS, MAX_RESUMES_AFTER_LOST_LEASE } from './limits.js';
import { applyObservations, observationsOf } from './observed-state.js';
import { bootCoverage } from './read-coverage.js';

export interface JobDeps {
  repo: BmcRepository;
  core: CorePort;
  keyring: CredentialsKeyring;
  settings: BmcSettings;
  bases: ImageBases;
  /** IMAGE_URL_TTL: how long a job's ISO URL stays valid. */
  imageUrlTtlMs: number;
  poller: FollowPoller;
  /** The service's Redfish sessions, one per BMC (ended at service stop). */
  sessions?: BmcSessions;
  /** Options every Redfish client gets on top of the BMC's own (tests shorten the waits). */
  redfish?: Partial<Pick<RedfishClientOptions, 'timeouts' | 'retryDelaysMs' | 'sleep'>>;
  /** This replica, the lease owner. */
  owner: string;
  logger: Logger;
  now(): Date;
}

/** The job is no longer this replica's to run (lease lost, replica stopping): stop without writing. */
export class JobStopped extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'JobStopped';
  }
}

/** A cancel seen at a step boundary inside phase 1's boot sequence: unwinds it to the runner. */
class JobCancelled extends Error {
  constructor() {
    super('the job was cancelled');
    this.name = 'JobCancelled';
  }
}

export type RunOutcome = 'finished' | 'stopped';

export class JobRunner {
  private readonly controller = new AbortController();
  private readonly log: Logger;
  private bmc: BmcRecord | undefined;
  private client: RedfishClient | undefined;
  /** A cancel was asked for (in the claimed row, or since): the job ends at its next step boundary. */
  private cancelAsked: boolean;

  constructor(
    private job: JobRecord,
    private readonly deps: JobDeps,
  ) {
    this.log = deps.logger.child({ bmcJob: job.id, bmcId: job.bmcId, action: job.action });
    this.cancelAsked = job.params.cancelRequestedAt !== undefined;
  }

  get id(): string {
    return this.job.id;
  }

  /** Stops at the next step boundary (the current Redfish call finishes under its own timeouts). */
  stop(why: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new JobStopped(why));
  }

  private checkStopped(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason as JobStopped;
  }

  /** A cancel was asked for: the job ends at its next step boundary (the current call finishes). */
  cancel(): void {
    this.cancelAsked = true;
  }

  async run(): Promise<RunOutcome> {
    try {
      return await this.runAndSettle();
    } finally {
      // Every exit (done, failed, cancelled, stopped, internal error): the session ends with the job.
      await this.client?.close().catch((err: unknown) => this.log.warn({ err }, 'BMC session not ended'));
    }
  }

  private async runAndSettle(): Promise<RunOutcome> {
    try {
      await this.runJob();
      return 'finished';
    } catch (err) {
      if (err instanceof JobStopped) {
        this.log.info({ why: err.message }, 'BMC job stopped on this replica');
        return 'stopped';
      }
      this.log.error({ err }, 'BMC job failed with an internal error');
      try {
        await this.fail(
          this.currentStep()?.name ?? this.job.steps[0]?.name ?? 'job',
          `internal error: ${String((err as Error)?.message ?? err)}`,
        );
        return 'finished';
      } catch (again) {
        if (!(again instanceof JobStopped)) this.log.error({ err: again }, 'BMC job could not be marked failed');
        return 'stopped';
      }
    }
  }

  private async runJob(): Promise<void> {
    const bmc = await this.deps.repo.getBmc(this.job.bmcId);
    if (!bmc) throw new JobStopped('the BMC was removed');
    this.bmc = bmc;
    if (this.job.lostLeases > MAX_RESUMES_AFTER_LOST_LEASE) {
      const at = this.currentStep()?.name ?? this.job.steps[0]?.name ?? 'job';
      return this.fail(
        at,
        `the replica running this job died or stalled ${this.job.lostLeases} times while it was at ${at}; not resumed again (at most ${MAX_RESUMES_AFTER_LOST_LEASE} times): see those replicas' logs for why, then start a new job`,
      );
    }
    const plan = resumePlan(this.job.action, this.job.steps);
    if (plan.kind === 'fail') return this.fail(plan.step, plan.reason);
    if (plan.kind === 'finished') return this.succeed();
    const client = await this.openClient(bmc, plan.kind === 'run' ? plan.startAt : 'iso-read');
    if (!client) return;
    if (this.job.action === 'boot-discovery')
      return this.runBoot(client, plan.kind === 'run' ? plan.startAt : undefined);
    return this.runSimple(client, plan.kind === 'run' ? plan.startAt : 'discover');
  }

  // ---------------------------------------------------------------- the Redfish client

  private async openClient(bmc: BmcRecord, step: string): Promise<RedfishClient | undefined> {
    if (!bmc.credentials) {
      await this.fail(
        step,
        `BMC ${JSON.stringify(bmc.name)} has no credentials (imported without --include-bmc-credentials): set them with \`bootsmith bmc update ${bmc.name} --username … --password-file …\``,
      );
      return undefined;
    }
    let credentials;
    try {
      credentials = (await this.deps.keyring.get()).open(bmc.id, bmc.name, bmc.credentials);
    } catch (err) {
      await this.fail(step, (err as Error).message);
      return undefined;
    }
    try {
      this.client = await RedfishClient.open({
        name: bmc.name,
        address: bmc.address,
        username: credentials.username,
        password: credentials.password,
        trust:
          bmc.tlsVerify === 'insecure'
            ? { verify: 'insecure' }
            : bmc.tlsVerify === 'ca' && bmc.caPem
              ? { verify: 'ca-pem', caPem: bmc.caPem }
              : { verify: 'system' },
        ...(bmc.profileOverride ? { profile: bmc.profileOverride } : {}),
        ...(this.deps.sessions ? { sessions: this.deps.sessions } : {}),
        timeouts: {
          connectMs: this.deps.settings.bmcConnectTimeoutMs,
          tlsMs: this.deps.settings.bmcTlsTimeoutMs,
          requestMs: this.deps.settings.bmcReadTimeoutMs,
        },
        ...this.deps.redfish,
        log: (e) => {
          if (e.retryInMs !== undefined) {
            this.log.warn(
              {
                bmc: e.bmc,
                step: e.step,
                method: e.method,
                path: e.path,
                status: e.status,
                failure: e.failure,
                attempt: e.attempt,
                retryInMs: e.retryInMs,
              },
              'BMC call retried',
            );
          } else {
            this.log.debug(
              {
                bmc: e.bmc,
                step: e.step,
                method: e.method,
                path: e.path,
                status: e.status,
                failure: e.failure,
                ms: e.ms,
              },
              'BMC call',
            );
          }
        },
      });
      return this.client;
    } catch (err) {
      if (!(err instanceof RedfishError)) throw err;
      await this.fail(step, err.inStep(step).message);
      return undefined;
    }
  }

  // ---------------------------------------------------------------- eject, power, refresh

  private async runSimple(client: RedfishClient, startAt: string): Promise<void> {
    const names = this.job.steps.map((s) => s.name);
    for (const name of names.slice(Math.max(0, names.indexOf(startAt)))) {
      this.checkStopped();
      if (this.cancelAsked) return this.cancelled(client, undefined);
      const startedAt = this.deps.now();
      const before = client.stats;
      try {
        let detail: string;
        let data: Record<string, unknown> | undefined;
        if (name === 'discover') {
          const inventory = await client.inventory('discover');
          await this.storeInventory(inventory);
          detail = inventoryWords(inventory);
          data = { profile: inventory.profile.id, macs: inventory.macs, powerState: inventory.system.powerState };
        } else if (name === 'eject') {
          const ejected = await client.ejectAll('eject');
          detail = ejected.ejected.length > 0 ? `ejected slot(s) ${ejected.ejected.join(', ')}` : 'no slot held media';
          data = { ...ejected };
        } else if (name === 'power') {
          const action = this.job.action === 'power-on' ? 'on' : this.job.action === 'power-off' ? 'off' : 'reset';
          if (action === 'reset') {
            // A reset sent twice restarts twice: mark it before the call, so a resume fails instead.
            this.setStep(name, { status: 'running', startedAt: startedAt.toISOString() });
            await this.save();
          }
          const power = await client.setPower(action, 'power');
          detail = power.actions.length > 0 ? `${power.actions.join(' then ')} (power was ${power.from})` : power.why;
          data = { from: power.from, actions: [...power.actions] };
        } else {
          throw new Error(`unknown step ${name} of ${this.job.action}`);
        }
        const cost = costSince(client, before);
        const step = this.setStep(name, {
          status: 'done',
          detail,
          ...(data ? { data } : {}),
          ...times(startedAt, this.deps.now()),
          ...cost,
        });
        await this.save();
        await this.event(step);
        await this.observe(name, data);
      } catch (err) {
        if (!(err instanceof RedfishError)) throw err;
        const cost = costSince(client, before);
        this.setStep(name, { ...times(startedAt, this.deps.now()), ...cost });
        return this.fail(name, err.inStep(name).message);
      }
    }
    return this.succeed();
  }

  // ---------------------------------------------------------------- boot-discovery

  private async runBoot(client: RedfishClient, startAt: string | undefined): Promise<void> {
    const infraEnvId = this.job.infraEnvId;
    const infraEnv = infraEnvId ? await this.deps.core.getInfraEnv(infraEnvId) : undefined;
    if (!infraEnv) {
      return this.fail(
        startAt ?? 'iso-read',
        `the InfraEnv ${infraEnvId ?? '(none)'} to boot does not exist (any more)`,
      );
    }
    const { token, hash } = jobToken(infraEnv.imageTokenKey, this.job.id);
    const now = this.deps.now();
    await this.deps.core.insertUrlTokens([
      {
        tokenHash: hash,
        infraEnvId: infraEnv.id,
        standing: true,
        expiresAt: new Date(now.getTime() + this.deps.imageUrlTtlMs),
        createdAt: now,
      },
    ]);
    if (this.job.imageTokenHash !== hash) {
      this.job.imageTokenHash = hash;
      await this.save();
    }
    if (this.cancelAsked) return this.cancelled(client, infraEnv.id);
    if (startAt !== undefined && isBootDiscoveryStep(startAt)) {
      const urls = jobIsoUrls(this.deps.bases, (base) => this.deps.core.tokenIsoUrl(base, infraEnv, token));
      let result;
      try {
        result = await runBootDiscovery(
          client,
          {
            ...urls,
            bootMode: this.job.params.bootMode ?? this.bmc!.bootMode,
            bootMethod: this.job.params.bootMethod ?? this.bmc!.bootMethod ?? 'auto',
          },
          { startAt, onStep: (r) => this.onBootStep(r) },
        );
      } catch (err) {
        if (err instanceof JobCancelled) return this.cancelled(client, infraEnv.id);
        throw err;
      }
      if (!result.ok) return this.fail(result.failedStep ?? 'power', result.error?.message ?? 'failed', false);
    }
    // The Redfish steps are done: only observing from here on, the BMC is free for a refresh or an eject.
    await this.releaseBmc();
    return this.follow(client, infraEnv.id);
  }

  private async onBootStep(r: StepResult): Promise<void> {
    this.checkStopped();
    if (r.status === 'skipped' && r.detail === 'done earlier') return; // settled before this claim
    if (r.status === 'skipped') return; // after a failed step: left pending
    const data = r.data ? sanitizeStepData(r.step, r.data) : undefined;
    const step = this.setStep(r.step, {
      status: r.status,
      detail: r.detail,
      ...(data ? { data } : {}),
      // On this service's clock (as every other time of the job, and the hosts' registration times).
      ...times(new Date(this.deps.now().getTime() - r.ms), this.deps.now()),
      calls: r.calls,
      retries: r.retries,
    });
    if (r.step === 'boot-override' && r.status === 'done') {
      // The next call is the power action: marked in this write, so a resume never sends it twice.
      this.setStep('power', { status: 'running', startedAt: this.deps.now().toISOString() });
    }
    await this.save();
    if (r.status !== 'failed') await this.event(step);
    if (r.status === 'done') {
      // The inventory the discover step read (serial, MACs, System UUID: what the host is matched by).
      if (r.step === 'discover' && r.inventory) await this.storeInventory(r.inventory);
      else await this.observe(r.step, data);
    }
    if (this.cancelAsked && r.status === 'done') throw new JobCancelled();
  }

  private async follow(client: RedfishClient, infraEnvId: string): Promise<void> {
    const insert = this.step('insert');
    const power = this.step('power');
    const since = insert?.startedAt ? new Date(insert.startedAt) : (this.job.startedAt ?? this.deps.now());
    const poweredAt = power?.finishedAt ? new Date(power.finishedAt) : since;
    const timeouts = {
      isoReadMs: this.job.params.isoReadTimeoutMs ?? this.deps.settings.bmcIsoReadTimeoutMs,
      bootMs: this.job.params.bootTimeoutMs ?? this.deps.settings.bmcBootTimeoutMs,
      registerMs: this.job.params.registerTimeoutMs ?? this.deps.settings.bmcRegisterTimeoutMs,
    };
    for (;;) {
      this.checkStopped();
      if (this.cancelAsked) return this.cancelled(client, infraEnvId);
      let snapshot;
      try {
        snapshot = await this.deps.poller.next(this.job.id, infraEnvId, since);
      } catch (err) {
        this.checkStopped();
        this.log.warn({ err }, 'BMC job: observing the boot failed; trying again');
        continue;
      }
      const bmc = (await this.deps.repo.getBmc(this.job.bmcId)) ?? this.bmc!;
      const identity = { systemUuid: bmc.inventory?.system.uuid, macs: bmc.inventory?.macs ?? [] };
      const host = matchHost(snapshot.hosts, identity, since);
      for (;;) {
        this.checkStopped();
        if (this.cancelAsked) return this.cancelled(client, infraEnvId);
        const steps = Object.fromEntries(FOLLOW_STEPS.map((n) => [n, this.step(n)])) as Record<
          FollowStep,
          JobStep | undefined
        >;
        const eject =
          steps.registered?.status !== 'done'
            ? { eject: false, why: '' }
            : this.httpBoot()
              ? { eject: true, why: 'HTTP boot: the firmware read the ISO into RAM' }
              : ejectDecision(this.job.params.eject ?? bmc.eject, await this.deps.core.getInfraEnv(infraEnvId));
        const decision: FollowDecision = decideFollow({
          now: this.deps.now(),
          poweredAt,
          steps,
          reads: {
            firstReadAt: snapshot.reads.firstReadAt,
            requests: snapshot.reads.requests,
            heads: snapshot.reads.heads,
            bytes: snapshot.reads.bytes,
            addresses: snapshot.reads.addresses,
            coverage: bootCoverage(snapshot.reads.ranges, snapshot.reads.bootExtents),
          },
          host,
          bmcIdentity: identity,
          eject,
          timeouts,
        });
        switch (decision.kind) {
          case 'wait':
            await this.waiting(decision.for, decision.detail);
            break;
          case 'mark':
          case 'skip': {
            const at = this.deps.now().toISOString();
            const step = this.setStep(decision.step, {
              status: decision.kind === 'mark' ? 'done' : 'skipped',
              detail: decision.detail,
              ...(decision.kind === 'mark' && decision.data ? { data: decision.data } : {}),
              startedAt: this.step(decision.step)?.startedAt ?? at,
              finishedAt: at,
            });
            if (decision.kind === 'mark' && decision.hostId) this.job.hostId = decision.hostId;
            await this.save();
            await this.event(step);
            continue;
          }
          case 'eject': {
            if ((await this.holdBmc()) === 'busy') {
              await this.waiting(
                'eject-media',
                `waiting for the BMC's other job to end before ejecting (${decision.why})`,
              );
              break; // the next round asks again
            }
            const ejected = await this.ejectMedia(client, decision.why);
            if (!ejected.ok) return this.fail('eject-media', ejected.reason);
            continue;
          }
          case 'fail':
            return this.fail(decision.step, decision.reason);
          case 'done':
            return this.succeed();
        }
        break; // wait: the next round
      }
    }
  }

  /** The boot went by UEFI HTTP Boot (its insert step says so): nothing to eject, an override to clear. */
  private httpBoot(): boolean {
    return this.step('insert')?.data?.method === 'http';
  }

  /**
   * Ejects every slot as the eject-media step (after an HTTP boot: clears the boot override
   * instead) and revokes the job's URL; the reason when the BMC refused.
   */
  private async ejectMedia(client: RedfishClient, why: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const startedAt = this.deps.now();
    const before = client.stats;
    this.setStep('eject-media', { status: 'running', detail: '', startedAt: startedAt.toISOString() });
    await this.save();
    try {
      let detail: string;
      let data: Record<string, unknown>;
      if (this.httpBoot()) {
        const cleared = await client.clearBootOverride('eject-media');
        detail = `HTTP boot: no media; boot override cleared (was ${cleared.was ?? 'unknown'}) (${why})`;
        data = { method: 'http', overrideWas: cleared.was ?? null };
      } else {
        const ejected = await client.ejectAll('eject-media');
        detail = `${ejected.ejected.length > 0 ? `ejected slot(s) ${ejected.ejected.join(', ')}` : 'no slot held media any more'} (${why})`;
        data = { ...ejected };
      }
      const step = this.setStep('eject-media', {
        status: 'done',
        detail,
        data,
        ...times(startedAt, this.deps.now()),
        ...costSince(client, before),
      });
      if (this.job.imageTokenHash) await this.deps.core.deleteUrlToken(this.job.imageTokenHash);
      await this.save();
      await this.event(step);
      await this.observe('eject-media', step.data);
      return { ok: true };
    } catch (err) {
      if (!(err instanceof RedfishError)) throw err;
      this.setStep('eject-media', { ...times(startedAt, this.deps.now()), ...costSince(client, before) });
      return { ok: false, reason: err.inStep('eject-media').message };
    }
  }

  // ---------------------------------------------------------------- holding the BMC, waiting, cancelling

  /** A boot job whose Redfish steps are done lets its BMC go (state following). */
  private async releaseBmc(): Promise<void> {
    if (this.job.state === 'following') return;
    this.job.state = 'following';
    const ok = await this.deps.repo.follow(this.deps.owner, this.job.bmcId, this.job.id, this.job, this.deps.now());
    if (!ok) throw new JobStopped('the lease on the job was lost (another replica took it over, or it was removed)');
  }

  /** Takes the BMC again to call it (an eject): `busy` while another job holds it. */
  private async holdBmc(): Promise<'held' | 'busy'> {
    if (this.job.state === 'running') return 'held';
    const held = await this.deps.repo.holdAgain(this.deps.owner, this.job.id, this.deps.now());
    if (held === 'lost')
      throw new JobStopped('the lease on the job was lost (another replica took it over, or it was removed)');
    if (held === 'held') this.job.state = 'running';
    return held;
  }

  /** A followed step waits: it shows as running with what it waits for (written once per change). */
  private async waiting(name: FollowStep, detail: string): Promise<void> {
    const current = this.step(name);
    if (current?.status === 'running' && current.detail === detail) return;
    this.setStep(name, { status: 'running', detail, startedAt: current?.startedAt ?? this.deps.now().toISOString() });
    await this.save();
  }

  /**
   * Ends the job as cancelled at a step boundary: steps in progress (none has a call in flight
   * here) are skipped; a boot ejects what it inserted when the policy says so (./eject-policy.ts),
   * taking the BMC again for it (waiting HOLD_WAIT_MS at most for a job beside it).
   */
  private async cancelled(client: RedfishClient, infraEnvId: string | undefined): Promise<void> {
    const at = this.deps.now().toISOString();
    const where = this.currentStep()?.name;
    for (const s of this.job.steps)
      if (s.status === 'running') this.setStep(s.name, { status: 'skipped', detail: 'cancelled', finishedAt: at });
    let words = `cancelled${where ? ` at ${where}` : ''}`;
    if (this.job.action === 'boot-discovery') {
      const infraEnv = infraEnvId ? await this.deps.core.getInfraEnv(infraEnvId) : undefined;
      const decision = cancelEjectDecision(this.job.params.eject ?? this.bmc!.eject, this.job.steps, infraEnv);
      if (decision.eject) {
        const deadline = Date.now() + HOLD_WAIT_MS;
        while ((await this.holdBmc()) === 'busy' && Date.now() < deadline) {
          this.checkStopped();
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        if (this.job.state !== 'running') {
          words += `; media not ejected: another job held the BMC for ${Math.round(HOLD_WAIT_MS / 1000)} s`;
        } else {
          const ejected = await this.ejectMedia(client, `cancelled: ${decision.why}`);
          words += ejected.ok ? `; media ejected (${decision.why})` : `; the eject failed: ${ejected.reason}`;
        }
      } else {
        if (this.step('eject-media')?.status !== 'done')
          this.setStep('eject-media', { status: 'skipped', detail: decision.why, finishedAt: at });
        if ('nothing' in decision && this.job.imageTokenHash)
          await this.deps.core.deleteUrlToken(this.job.imageTokenHash);
        words += `; ${decision.why}`;
      }
    }
    this.job.state = 'cancelled';
    this.job.error = words;
    this.job.finishedAt = this.deps.now();
    await this.save();
    await this.insertEvent('bmc_job_cancelled', `${this.job.action} ${words}`, undefined);
  }

  /** What a step observed of the BMC (power, media, boot override), into its stored inventory. */
  private async observe(step: string, data: Record<string, unknown> | undefined): Promise<void> {
    const observations = observationsOf(this.job.action, step, data);
    if (observations.length === 0) return;
    try {
      await this.deps.repo.changeInventory(
        this.job.bmcId,
        (inventory) => (inventory ? applyObservations(inventory, observations) : inventory),
        this.deps.now(),
      );
    } catch (err) {
      this.log.warn({ err }, 'BMC job: what the step observed (power, media) was not stored');
    }
  }

  // ---------------------------------------------------------------- the record

  private step(name: string): JobStep | undefined {
    return this.job.steps.find((s) => s.name === name);
  }

  private currentStep(): JobStep | undefined {
    return this.job.steps.find((s) => s.status === 'running') ?? this.job.steps.find((s) => s.status === 'pending');
  }

  private setStep(name: string, patch: Partial<JobStep>): JobStep {
    const index = this.job.steps.findIndex((s) => s.name === name);
    const next: JobStep = { ...(this.job.steps[index] ?? { name, status: 'pending', detail: '' }), ...patch, name };
    if (index < 0) this.job.steps.push(next);
    else this.job.steps[index] = next;
    return next;
  }

  private async storeInventory(inventory: BmcInventory): Promise<void> {
    await this.deps.repo.setInventory(this.job.bmcId, inventory, this.deps.now());
    if (this.bmc) this.bmc = { ...this.bmc, inventory, inventoryAt: this.deps.now() };
  }

  private async save(): Promise<void> {
    const ok = await this.deps.repo.saveJob(this.deps.owner, this.job.id, this.job, this.deps.now());
    if (!ok) throw new JobStopped('the lease on the job was lost (another replica took it over, or it was removed)');
  }

  private async fail(stepName: string, reason: string, markStep = true): Promise<void> {
    const at = this.deps.now();
    if (markStep) {
      const existing = this.step(stepName);
      this.setStep(stepName, {
        status: 'failed',
        detail: reason,
        startedAt: existing?.startedAt ?? at.toISOString(),
        finishedAt: existing?.finishedAt ?? at.toISOString(),
      });
    }
    this.job.state = 'failed';
    this.job.error = reason;
    this.job.finishedAt = at;
    await this.save();
    const step = this.step(stepName);
    if (step) await this.event(step);
    await this.jobEvent('failed', reason);
  }

  private async succeed(): Promise<void> {
    this.job.state = 'succeeded';
    this.job.error = null;
    this.job.finishedAt = this.deps.now();
    await this.save();
    const words =
      this.job.action === 'boot-discovery'
        ? `host ${this.job.hostId ?? '?'} registered; media ${this.step('eject-media')?.status === 'done' ? 'ejected' : 'kept'}`
        : (this.job.steps
            .map((s) => s.detail)
            .filter((d) => d !== '')
            .at(-1) ?? 'done');
    await this.jobEvent('succeeded', words);
  }

  private async event(step: JobStep): Promise<void> {
    const name =
      step.status === 'failed' ? 'bmc_step_failed' : step.status === 'skipped' ? 'bmc_step_skipped' : 'bmc_step_done';
    await this.insertEvent(name, `${step.name}: ${step.detail}`, step.name);
  }

  private async jobEvent(outcome: 'succeeded' | 'failed', words: string): Promise<void> {
    await this.insertEvent(
      outcome === 'failed' ? 'bmc_job_failed' : 'bmc_job_succeeded',
      `${this.job.action} ${outcome}: ${words}`,
      undefined,
    );
  }

  private async insertEvent(name: JobEventName, words: string, step: string | undefined): Promise<void> {
    try {
      await this.deps.core.insertEvent(jobEvent(this.job, this.bmc, name, words, step, this.deps.now()));
    } catch (err) {
      this.log.warn({ err }, 'BMC job event not recorded');
    }
  }
}

/** The URL a boot inserted, as a step may show it: the token redacted. */
function sanitizeStepData(step: BootDiscoveryStep, data: Record<string, unknown>): Record<string, unknown> {
  if (step !== 'insert' || typeof data.url !== 'string') return data;
  return { ...data, url: redactUrl(data.url) };
}

function inventoryWords(inventory: BmcInventory): string {
  const s = inventory.system;
  return (
    `profile ${inventory.profile.id} (${inventory.profile.reason}); ${[s.manufacturer, s.model].filter(Boolean).join(' ') || 'model unknown'}` +
    `${s.serialNumber ? `, serial ${s.serialNumber}` : ''}; power ${s.powerState ?? 'unknown'}; ${inventory.macs.length} MAC(s), ${inventory.virtualMedia.length} slot(s)`
  );
}

function times(startedAt: Date, finishedAt: Date): { startedAt: string; finishedAt: string } {
  return { startedAt: startedAt.toISOString(), finishedAt: finishedAt.toISOString() };
}

function costSince(
  client: RedfishClient,
  before: { calls: number; retries: number },
): { calls: number; retries: number } {
  const now = client.stats;
  return { calls: now.calls - before.calls, retries: now.retries - before.retries };
}
