// The host state machine of the discovery phase: discovering → known / insufficient → disconnected and back.
//
// `refreshHost` recomputes validations and moves the host to the state they imply,
// with upstream's status_info sentences, recording an event for every change.
// Installation states (installing-in-progress, installed, error) are left alone here:
// they are entered only through progress reports (service.ts).
import type { Repository } from '../db/repository.js';
import { events } from '../events/events.js';
import type { HostRecord, HostStatus } from '../model.js';
import { runValidations, validationsInfo, type ValidationResult } from './validations.js';

export const STATUS_INFO = {
  discovering: 'Waiting for host to send hardware details',
  disconnected: 'Host has stopped communicating with the installation service',
  known: 'Host is ready to be installed',
  insufficient: 'Host does not meet the minimum hardware requirements: $FAILING_VALIDATIONS',
  installed: 'Done',
  installing: 'Installation is in progress',
  restartedDuringInstall: 'The host unexpectedly restarted during the installation',
} as const;

/** Statuses the monitor and heartbeats re-evaluate. */
export const DISCOVERY_STATUSES: HostStatus[] = ['discovering', 'known', 'insufficient', 'disconnected'];

export function decide(validations: readonly ValidationResult[]): { status: HostStatus; statusInfo: string } {
  const get = (id: string) => validations.find((v) => v.id === id);
  if (get('connected')?.status !== 'success') return { status: 'disconnected', statusInfo: STATUS_INFO.disconnected };
  if (get('has-inventory')?.status !== 'success') return { status: 'discovering', statusInfo: STATUS_INFO.discovering };
  const failing = validations.filter((v) => v.status !== 'success').map((v) => v.message);
  if (failing.length > 0) {
    return {
      status: 'insufficient',
      statusInfo: STATUS_INFO.insufficient.replace('$FAILING_VALIDATIONS', failing.join(' ; ')),
    };
  }
  return { status: 'known', statusInfo: STATUS_INFO.known };
}

/** Applies a status change (and its event) to `h` in place; returns whether anything changed. */
export async function setStatus(
  repo: Repository,
  h: HostRecord,
  status: HostStatus,
  statusInfo: string,
  now: Date,
): Promise<boolean> {
  if (h.status === status && h.statusInfo === statusInfo) return false;
  const from = h.status;
  h.status = status;
  h.statusInfo = statusInfo.slice(0, 2040);
  h.updatedAt = now;
  if (from !== status) {
    h.statusUpdatedAt = now;
    await events.hostStatusUpdated(repo, now, h, from);
  }
  return true;
}

/** Re-evaluates `h` (already loaded, ideally FOR UPDATE) and stores it when it changed. */
export async function refreshHost(
  repo: Repository,
  h: HostRecord,
  now: Date,
  maxDisconnectionMs: number,
): Promise<HostRecord> {
  if (!DISCOVERY_STATUSES.includes(h.status)) {
    await repo.upsertHost(h);
    return h;
  }
  // siblings matter only for hostname-unique, which needs an inventory
  const siblings = h.inventory ? await repo.listHosts(h.infraEnvId) : [];
  const results = runValidations(h, siblings, now, maxDisconnectionMs);
  const info = validationsInfo(results);
  const next = decide(results);
  const changed = await setStatus(repo, h, next.status, next.statusInfo, now);
  if (changed || info !== h.validationsInfo) {
    h.validationsInfo = info;
    h.updatedAt = now;
  }
  await repo.upsertHost(h);
  return h;
}
