// What following boot jobs observe, fetched for all of them at once: every FOLLOW_INTERVAL_MS one
// query reads the reads of every waiting job (all replicas' rows), and one query per InfraEnv the
// hosts registered since its earliest waiting insert. Each job's runner awaits `next()` and gets
// its share; a failed query rejects that round's waiters, who try again next round.
// Does NOT: decide (./follow-plan.ts) or write anything.
import type { CorePort } from '../core-port.js';
import type { HostCandidate } from './host-match.js';
import type { BmcRepository } from '../store/bmc-repository.js';
import type { JobReadsRecord, ReadRange } from '../store/records.js';
import { FOLLOW_INTERVAL_MS, MAX_HOSTS_MATCHED } from './limits.js';
import { mergeRanges } from './read-coverage.js';

/** Every replica's reads of one job's URL, merged. */
export interface MergedReads {
  firstReadAt: Date | undefined;
  heads: number;
  requests: number;
  bytes: number;
  ranges: ReadRange[];
  bootExtents: ReadRange[];
  addresses: string[];
}

export function mergeReads(rows: readonly JobReadsRecord[]): MergedReads {
  const firsts = rows.map((r) => r.firstReadAt).filter((d): d is Date => d !== null);
  return {
    firstReadAt: firsts.length > 0 ? new Date(Math.min(...firsts.map((d) => d.getTime()))) : undefined,
    heads: rows.reduce((n, r) => n + r.heads, 0),
    requests: rows.reduce((n, r) => n + r.requests, 0),
    bytes: rows.reduce((n, r) => n + r.bytes, 0),
    ranges: mergeRanges(rows.flatMap((r) => r.ranges)),
    bootExtents: rows.find((r) => r.bootExtents.length > 0)?.bootExtents ?? [],
    addresses: [...new Set(rows.flatMap((r) => r.addresses))],
  };
}

export interface FollowSnapshot {
  reads: MergedReads;
  /** Hosts of the job's InfraEnv registered at or after `since`. */
  hosts: HostCandidate[];
}

interface Waiter {
  jobId: string;
  infraEnvId: string;
  since: Date;
  resolve(snapshot: FollowSnapshot): void;
  reject(err: unknown): void;
}

export class FollowPoller {
  private waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly repo: BmcRepository,
    private readonly core: Pick<CorePort, 'hostsRegisteredSince'>,
    private readonly intervalMs = FOLLOW_INTERVAL_MS,
  ) {}

  /** The job's observations at the next round. */
  next(jobId: string, infraEnvId: string, since: Date): Promise<FollowSnapshot> {
    if (this.closed) return Promise.reject(new Error('the follow poller is closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ jobId, infraEnvId, since, resolve, reject });
      this.timer ??= setTimeout(() => void this.round(), this.intervalMs);
    });
  }

  private async round(): Promise<void> {
    this.timer = undefined;
    const round = this.waiting;
    this.waiting = [];
    if (round.length === 0) return;
    try {
      const reads = await this.repo.readsOfJobs(round.map((w) => w.jobId));
      const byEnv = new Map<string, Date>();
      for (const w of round) {
        const earliest = byEnv.get(w.infraEnvId);
        if (!earliest || w.since < earliest) byEnv.set(w.infraEnvId, w.since);
      }
      const hosts = new Map<string, HostCandidate[]>();
      for (const [infraEnvId, since] of byEnv)
        hosts.set(infraEnvId, await this.core.hostsRegisteredSince(infraEnvId, since, MAX_HOSTS_MATCHED));
      for (const w of round) {
        w.resolve({
          reads: mergeReads(reads.get(w.jobId) ?? []),
          hosts: (hosts.get(w.infraEnvId) ?? []).filter((h) => h.registeredAt >= w.since),
        });
      }
    } catch (err) {
      for (const w of round) w.reject(err);
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const round = this.waiting;
    this.waiting = [];
    for (const w of round) w.reject(new Error('the follow poller is closed'));
  }
}
