// The host monitor: periodically turns hosts that stopped checking in `disconnected-unbound`.
//
// Only hosts whose last check-in is older than the limit can change state with time (every
// other validation changes on inventory replies and hostname changes, which re-evaluate the
// hosts concerned at once), so a pass touches only those, in short batches: no pass holds a
// transaction, the connection or the rows for long, whatever the number of hosts. Each batch
// runs under pg_try_advisory_xact_lock(MONITOR_LOCK): with several replicas on one PostgreSQL
// only the lock holder works (the embedded server runs the same SQL and locks).
import type { Logger } from 'pino';
import type { Repository } from '../db/repository.js';
import type { HostStatus } from '../model.js';
import { refreshHost } from './state.js';

export const MONITOR_LOCK = 7_236_002;
const BATCH = 100;
/** States that turn `disconnected` when check-ins stop. */
const CONNECTED_DISCOVERY_STATUSES: HostStatus[] = ['discovering-unbound', 'known-unbound', 'insufficient-unbound'];

export interface MonitorOptions {
  repo: Repository;
  logger: Logger;
  intervalMs: number;
  maxDisconnectionMs: number;
  now(): Date;
}

/** One pass; returns how many hosts were re-evaluated, or -1 when another replica holds the lock. */
export async function monitorOnce(o: Omit<MonitorOptions, 'intervalMs' | 'logger'>): Promise<number> {
  const now = o.now();
  const cutoff = new Date(now.getTime() - o.maxDisconnectionMs);
  let total = 0;
  for (;;) {
    const batch = await o.repo.transaction(async (repo) => {
      if (!(await repo.tryAdvisoryXactLock(MONITOR_LOCK))) return undefined;
      const hosts = await repo.listStaleHostsForUpdate(CONNECTED_DISCOVERY_STATUSES, cutoff, BATCH);
      let moved = 0;
      for (const h of hosts) {
        const before = h.status;
        if ((await refreshHost(repo, h, now, o.maxDisconnectionMs)).status !== before) moved++;
      }
      return { examined: hosts.length, moved };
    });
    if (!batch) return total === 0 ? -1 : total;
    total += batch.examined;
    // a full batch that moved nobody would come back unchanged: stop rather than loop
    if (batch.examined < BATCH || batch.moved === 0) return total;
  }
}

export function startMonitor(o: MonitorOptions): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(() =>
      monitorOnce(o).catch((err: unknown) =>
        o.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'host monitor pass failed'),
      ),
    );
  }, o.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
