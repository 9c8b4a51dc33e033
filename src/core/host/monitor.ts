// The host monitor: periodically re-evaluates discovery-phase hosts so silent ones turn disconnected.
//
// Each tick runs in one transaction holding pg_try_advisory_xact_lock(MONITOR_LOCK):
// with several replicas on one PostgreSQL only the lock holder works that tick
// (on PGlite the same SQL runs in the single process). Does not talk to agents.
import type { Logger } from 'pino';
import type { Repository } from '../db/repository.js';
import { DISCOVERY_STATUSES, refreshHost } from './state.js';

export const MONITOR_LOCK = 7_236_002;

export interface MonitorOptions {
  repo: Repository;
  logger: Logger;
  intervalMs: number;
  maxDisconnectionMs: number;
  now(): Date;
}

/** One pass; returns how many hosts were examined, or -1 when another replica holds the lock. */
export async function monitorOnce(o: Omit<MonitorOptions, 'intervalMs' | 'logger'>): Promise<number> {
  return o.repo.transaction(async (repo) => {
    if (!(await repo.tryAdvisoryXactLock(MONITOR_LOCK))) return -1;
    // Locked rows: a heartbeat committing meanwhile waits, or is skipped this pass, and is never undone.
    const hosts = await repo.listHostsByStatusForUpdate(DISCOVERY_STATUSES);
    const now = o.now();
    for (const h of hosts) await refreshHost(repo, h, now, o.maxDisconnectionMs);
    return hosts.length;
  });
}

export function startMonitor(o: MonitorOptions): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(() =>
      monitorOnce(o).catch((err: unknown) => o.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'host monitor pass failed')),
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
