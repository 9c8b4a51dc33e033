// The reads of boot jobs' ISO URLs as this replica serves them: the image side reports every
// answered request of a `/bytoken/` ISO URL (src/image-ports/token-read-observer.ts: the token's
// hash, the ranges served, the ISO's boot files); this keeps, per job, a bounded summary (first
// and last read, requests, bytes, merged ranges, addresses) and writes it to bmc_job_reads, one
// row per replica, at most once a second (the first read of a job at once). The job's runner, on
// whichever replica, merges the rows.
//
// Does: find which job a token hash belongs to (one query per token, cached: limits.ts), ignore
// tokens that are no job's and jobs that are no longer running, never block or fail the response
// (reports are synchronous and cheap; database work is asynchronous, errors logged at warn).
// Does NOT: use or log a report's token (only its hash), decide anything (./follow-plan.ts does).
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { TokenReadReport } from '../../image-ports/token-read-observer.js';
import type { BmcRepository } from '../store/bmc-repository.js';
import { isFinished, type JobReadsRecord, type ReadRange } from '../store/records.js';
import {
  MAX_READ_ADDRESSES,
  MAX_TRACKED_JOBS,
  READS_FLUSH_INTERVAL_MS,
  TOKEN_LOOKUP_MAX_ENTRIES,
  TOKEN_LOOKUP_TTL_MS,
  TOKEN_MISS_TTL_MS,
} from './limits.js';
import { addRange, mergeRanges } from './read-coverage.js';

type Lookup = { jobId: string } | { none: true };

export class ReadTracker {
  private readonly jobs = new Map<string, { record: JobReadsRecord; dirty: boolean }>();
  private readonly lookups = new LRUCache<string, Lookup>({ max: TOKEN_LOOKUP_MAX_ENTRIES });
  private readonly pending = new Map<string, TokenReadReport[]>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: BmcRepository,
    /** This replica's name in bmc_job_reads. */
    private readonly replica: string,
    private readonly logger: Logger,
    private readonly flushIntervalMs = READS_FLUSH_INTERVAL_MS,
  ) {}

  /** Called by the image side for every answered `/bytoken/` ISO request; never throws, never waits. */
  report(report: TokenReadReport): void {
    const known = this.lookups.get(report.tokenHash);
    if (known && 'none' in known) return;
    if (known) {
      this.add(known.jobId, report);
      return;
    }
    // The first request of a token: ask which job it is, keep its reports meanwhile (bounded).
    const waiting = this.pending.get(report.tokenHash);
    if (waiting) {
      if (waiting.length < 64) waiting.push(report);
      return;
    }
    if (this.pending.size >= TOKEN_LOOKUP_MAX_ENTRIES) return;
    this.pending.set(report.tokenHash, [report]);
    this.repo
      .jobOfToken(report.tokenHash)
      .then((job) => {
        const reports = this.pending.get(report.tokenHash) ?? [];
        this.pending.delete(report.tokenHash);
        if (!job || isFinished(job.state)) {
          this.lookups.set(report.tokenHash, { none: true }, { ttl: TOKEN_MISS_TTL_MS });
          return;
        }
        this.lookups.set(report.tokenHash, { jobId: job.id }, { ttl: TOKEN_LOOKUP_TTL_MS });
        for (const r of reports) this.add(job.id, r);
      })
      .catch((err: unknown) => {
        this.pending.delete(report.tokenHash);
        this.logger.warn({ err }, 'BMC job reads: token lookup failed');
      });
  }

  private add(jobId: string, r: TokenReadReport): void {
    let entry = this.jobs.get(jobId);
    if (!entry) {
      entry = {
        record: {
          jobId,
          replica: this.replica,
          firstReadAt: null,
          lastReadAt: null,
          heads: 0,
          requests: 0,
          bytes: 0,
          ranges: [],
          bootExtents: mergeRanges(r.bootExtents),
          size: r.size,
          addresses: [],
        },
        dirty: false,
      };
      this.jobs.set(jobId, entry);
      while (this.jobs.size > MAX_TRACKED_JOBS) {
        const oldest = this.jobs.keys().next().value;
        if (oldest === undefined) break;
        this.jobs.delete(oldest);
      }
    }
    const rec = entry.record;
    const firstRead = rec.firstReadAt === null && r.method === 'GET' && r.ranges.length > 0;
    if (r.method === 'HEAD') rec.heads++;
    else {
      rec.requests++;
      for (const range of r.ranges) {
        rec.ranges = addRange(rec.ranges, range);
        rec.bytes += range[1] - range[0];
      }
      if (r.ranges.length > 0) {
        rec.firstReadAt ??= r.at;
        rec.lastReadAt = r.at;
      }
    }
    if (!rec.addresses.includes(r.address) && rec.addresses.length < MAX_READ_ADDRESSES) rec.addresses.push(r.address);
    rec.size = r.size;
    if (rec.bootExtents.length === 0) rec.bootExtents = mergeRanges(r.bootExtents);
    entry.dirty = true;
    if (firstRead || rec.heads + rec.requests === 1) this.flushSoon(0);
    else this.flushSoon(this.flushIntervalMs);
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  /** Writes every job's changed summary (one at a time; a flush waits for the one before). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      for (const [, entry] of this.jobs) {
        if (!entry.dirty) continue;
        entry.dirty = false;
        const snapshot = { ...entry.record, ranges: entry.record.ranges.map((r): ReadRange => [r[0], r[1]]) };
        try {
          await this.repo.putReads(snapshot);
        } catch (err) {
          entry.dirty = true;
          this.logger.warn({ err, jobId: snapshot.jobId }, 'BMC job reads not recorded; retried at the next flush');
          this.flushSoon(this.flushIntervalMs);
          return;
        }
      }
    });
    return this.flushing;
  }

  /** Forgets a finished job (its row stays for the record). */
  forget(jobId: string): void {
    this.jobs.delete(jobId);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
