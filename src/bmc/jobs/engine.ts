// The BMC job engine of one replica: claims jobs from PostgreSQL (queued ones, and running ones
// whose replica died or stalled past its lease), runs each with a JobRunner, renews the leases of
// the jobs it runs every third of the lease, and stops a runner whose lease another replica took.
// With several replicas on one database, exactly one runs a job at a time: the claim is
// `FOR UPDATE SKIP LOCKED` with a lease, every write is guarded by the lease owner
// (store/bmc-repository.ts).
//
// A replica whose credentials key does not open (another key than the one the database records,
// an unreadable key file) claims nothing: its runners could only fail the jobs, which a replica
// with the right key runs instead; it logs why at warn, once a minute at most.
//
// Cancelling: a cancel asked through this replica's API reaches its runner at once (`cancel`); one
// asked through another replica is a mark in the job's row, which the heartbeat reads for the jobs
// it runs (one query per beat) and hands to their runners. Either way the runner ends the job at
// its next step boundary.
//
// Stopping (SIGTERM drain): no new claims; every runner stops at its next step boundary (a
// Redfish call in flight ends under its own timeouts, STOP_WAIT_MS at most), and the jobs still
// held are released at once, so another replica resumes them without waiting for the lease.
// Does NOT: create jobs (../bmc-service.ts), serve HTTP, or decide steps (./job-runner.ts).
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { BmcRepository } from '../store/bmc-repository.js';
import { type JobDeps, JobRunner } from './job-runner.js';
import { CLAIM_INTERVAL_MS, STOP_WAIT_MS } from './limits.js';

/** How often a replica whose key does not open says so. */
const KEY_WARN_INTERVAL_MS = 60_000;

export interface EngineOptions {
  repo: BmcRepository;
  /** Everything a runner needs but the owner (the engine's own name). */
  jobDeps: Omit<JobDeps, 'owner' | 'repo'>;
  maxRunning: number;
  leaseMs: number;
  claimIntervalMs?: number;
  logger: Logger;
  /** This replica's lease-owner name (default: a random one per process). */
  owner?: string;
}

export class BmcJobEngine {
  readonly owner: string;
  private readonly runners = new Map<string, { runner: JobRunner; done: Promise<unknown> }>();
  private claimTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private keyOpened = false;
  private lastKeyWarning = -Infinity;

  constructor(private readonly options: EngineOptions) {
    this.owner = options.owner ?? `replica-${randomUUID()}`;
  }

  /** Jobs this replica runs now. */
  get running(): string[] {
    return [...this.runners.keys()];
  }

  start(): void {
    this.scheduleClaim(0);
    const every = Math.max(100, Math.floor(this.options.leaseMs / 3));
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), every);
    this.heartbeatTimer.unref();
  }

  /** A cancel was asked for: the job's runner, if this replica runs it, ends it at its next step boundary. */
  cancel(jobId: string): void {
    this.runners.get(jobId)?.runner.cancel();
  }

  /** Looks for claimable jobs now (after this replica queued one). */
  wake(): void {
    if (!this.stopping) this.scheduleClaim(0);
  }

  private scheduleClaim(delayMs: number): void {
    if (this.stopping) return;
    if (this.claimTimer) clearTimeout(this.claimTimer);
    this.claimTimer = setTimeout(() => {
      this.claimTimer = undefined;
      this.claiming ??= this.claim().finally(() => {
        this.claiming = undefined;
        this.scheduleClaim(this.options.claimIntervalMs ?? CLAIM_INTERVAL_MS);
      });
    }, delayMs);
    this.claimTimer.unref();
  }

  private async claim(): Promise<void> {
    const room = this.options.maxRunning - this.runners.size;
    if (room <= 0 || this.stopping) return;
    if (!(await this.keyOpens())) return;
    let jobs;
    try {
      jobs = await this.options.repo.claimJobs(this.owner, room, this.options.leaseMs);
    } catch (err) {
      this.options.logger.warn({ err }, 'BMC jobs: claiming failed; trying again');
      return;
    }
    for (const job of jobs) {
      if (this.stopping) {
        await this.options.repo.releaseLease(this.owner, job.id).catch(() => undefined);
        continue;
      }
      if (job.claims > 1)
        this.options.logger.info(
          { bmcJob: job.id, claims: job.claims, lostLeases: job.lostLeases },
          'BMC job resumed on this replica',
        );
      const runner = new JobRunner(job, { ...this.options.jobDeps, repo: this.options.repo, owner: this.owner });
      const done = runner
        .run()
        .then(async (outcome) => {
          if (outcome === 'stopped' && this.stopping)
            await this.options.repo.releaseLease(this.owner, job.id).catch(() => undefined);
        })
        .finally(() => this.runners.delete(job.id));
      this.runners.set(job.id, { runner, done });
    }
  }

  /**
   * Whether this replica's credentials key opens, asked only once a job waits (so a replica
   * without BMCs creates no key file): a key the database does not record claims nothing.
   */
  private async keyOpens(): Promise<boolean> {
    if (this.keyOpened) return true;
    try {
      if (!(await this.options.repo.hasClaimableJobs())) return false;
    } catch (err) {
      this.options.logger.warn({ err }, 'BMC jobs: claiming failed; trying again');
      return false;
    }
    try {
      await this.options.jobDeps.keyring.get();
      this.keyOpened = true;
      return true;
    } catch (err) {
      const now = Date.now();
      if (now - this.lastKeyWarning >= KEY_WARN_INTERVAL_MS) {
        this.lastKeyWarning = now;
        this.options.logger.warn(
          { reason: (err as Error).message },
          'BMC jobs: not claiming jobs on this replica (its credentials key does not open)',
        );
      }
      return false;
    }
  }

  private async heartbeat(): Promise<void> {
    const ids = this.running;
    if (ids.length === 0) return;
    let held: Set<string>;
    try {
      held = await this.options.repo.renewLeases(this.owner, ids, this.options.leaseMs);
    } catch (err) {
      // The database is unreachable: the runners' own writes fail too and stop them if it lasts.
      this.options.logger.warn({ err }, 'BMC jobs: renewing leases failed');
      return;
    }
    for (const id of ids) {
      // A job that finished between the listing and the renewal is not held either: stopping it is a no-op.
      if (!held.has(id)) this.runners.get(id)?.runner.stop('the lease on the job was lost');
    }
    try {
      for (const id of await this.options.repo.cancelRequested([...held])) this.cancel(id);
    } catch (err) {
      this.options.logger.warn({ err }, 'BMC jobs: reading cancel requests failed');
    }
  }

  /** Stops claiming, stops every runner at its next step boundary, releases what it still holds. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      if (this.claimTimer) clearTimeout(this.claimTimer);
      if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
      await this.claiming;
      for (const { runner } of this.runners.values()) runner.stop('this replica is stopping');
      const all = Promise.allSettled([...this.runners.values()].map((r) => r.done));
      await Promise.race([all, delay(STOP_WAIT_MS, undefined, { ref: false })]);
    })();
    return this.stopped;
  }
}
