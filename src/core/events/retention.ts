// Event retention: periodically deletes events older than EVENTS_MAX_AGE, an InfraEnv's events
// beyond its newest EVENTS_MAX_PER_INFRA_ENV, and any beyond the newest EVENTS_MAX_TOTAL.
//
// Each deletion runs in short batches of PRUNE_BATCH rows, each batch its own transaction under
// pg_try_advisory_xact_lock(EVENTS_PRUNE_LOCK), as the host monitor does (host/monitor.ts): with
// several replicas on one PostgreSQL only the lock holder prunes, and no pass holds a
// transaction, a connection or rows for long, whatever the number of events.
// Does not: limit what is posted (post-limits.ts) or what one listing returns (handlers/events.ts).
import type { Logger } from 'pino';
import type { Repository } from '../db/repository.js';
import type { EventSettings } from '../event-limits.js';

export const EVENTS_PRUNE_LOCK = 7_236_003;
/** Rows deleted per statement: a few milliseconds of PostgreSQL work, never a long lock. */
export const PRUNE_BATCH = 5000;
/** Batches per kind of deletion per pass: a pass is bounded; what is left waits for the next one. */
const MAX_BATCHES_PER_PASS = 200;
/** InfraEnvs over their cap handled per pass. */
const INFRA_ENVS_PER_PASS = 100;
/** How often retention runs. */
export const EVENTS_PRUNE_INTERVAL_MS = 60_000;

export interface RetentionOptions {
  repo: Repository;
  settings: Pick<EventSettings, 'maxAgeMs' | 'maxPerInfraEnv' | 'maxTotal'>;
  now(): Date;
}

/** Repeats `step` (one locked batch) until it deletes less than a batch; -1 when another replica holds the lock. */
async function drain(repo: Repository, step: (tx: Repository) => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const deleted = await repo.transaction(async (tx) => {
      if (!(await tx.tryAdvisoryXactLock(EVENTS_PRUNE_LOCK))) return -1;
      return step(tx);
    });
    if (deleted < 0) return total === 0 ? -1 : total;
    total += deleted;
    if (deleted < PRUNE_BATCH) break;
  }
  return total;
}

/** One retention pass; returns how many events it deleted, or -1 when another replica prunes. */
export async function pruneEventsOnce(o: RetentionOptions): Promise<number> {
  const { repo, settings } = o;
  const cutoff = new Date(o.now().getTime() - settings.maxAgeMs);
  const aged = await drain(repo, (tx) => tx.deleteEventsBefore(cutoff, PRUNE_BATCH));
  if (aged < 0) return -1;
  let total = aged;
  for (const id of await repo.infraEnvsWithEventsOver(settings.maxPerInfraEnv, INFRA_ENVS_PER_PASS)) {
    total += Math.max(0, await drain(repo, (tx) => tx.trimEventsOf(id, settings.maxPerInfraEnv, PRUNE_BATCH)));
  }
  total += Math.max(0, await drain(repo, (tx) => tx.trimEvents(settings.maxTotal, PRUNE_BATCH)));
  return total;
}

export function startEventRetention(o: RetentionOptions & { logger: Logger; intervalMs?: number }): {
  stop(): Promise<void>;
} {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(() =>
      pruneEventsOnce(o).then(
        (deleted) => {
          if (deleted > 0) o.logger.info({ deleted }, 'old events pruned');
        },
        (err: unknown) =>
          o.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'event retention pass failed'),
      ),
    );
  }, o.intervalMs ?? EVENTS_PRUNE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
