// The host state machine of unbound hosts (every host here: InfraEnvs have no cluster), as
// upstream's pool state machine (internal/host/pool_host_statemachine.go): discovering-unbound →
// known-unbound / insufficient-unbound → disconnected-unbound and back.
//
// `refreshHost` recomputes validations and moves the host to the state they imply, with
// upstream's status_info sentences (internal/host/common.go), recording an event for every
// change. Legacy installation states (installing-in-progress, installed, error) are left alone
// here: only re-registration and the reset action (service.ts) leave them.
import type { Repository } from '../db/repository.js';
import { events } from '../events/events.js';
import type { HostRecord, HostStatus } from '../model.js';
import { runValidations, validationsInfo, type ValidationResult } from './validations.js';

export const STATUS_INFO = {
  discovering: 'Waiting for host to send hardware details',
  disconnected: 'Host has stopped communicating with the installation service',
  readyToBeBound: 'Host is ready to be bound to a cluster',
  insufficient: 'Host does not meet the minimum hardware requirements: $FAILING_VALIDATIONS',
  installed: 'Done',
  installing: 'Installation is in progress',
  restartedDuringInstall: 'The host unexpectedly restarted during the installation',
} as const;

/** Statuses the monitor and heartbeats re-evaluate. */
export const DISCOVERY_STATUSES: HostStatus[] = [
  'discovering-unbound',
  'known-unbound',
  'insufficient-unbound',
  'disconnected-unbound',
];

/** Upstream's `sufficientToBeBound`: minimum hardware of any role and a valid host name. */
const SUFFICIENT_TO_BE_BOUND = ['has-min-cpu-cores', 'has-min-memory', 'has-min-valid-disks', 'hostname-valid'];

/** $FAILING_VALIDATIONS: messages of the validations whose status is `failure`, sorted, joined by " ; ". */
export function failingValidations(validations: readonly ValidationResult[]): string {
  return validations
    .filter((v) => v.status === 'failure')
    .map((v) => v.message)
    .sort()
    .join(' ; ');
}

export function decide(validations: readonly ValidationResult[]): { status: HostStatus; statusInfo: string } {
  const get = (id: string) => validations.find((v) => v.id === id);
  if (get('connected')?.status !== 'success')
    return { status: 'disconnected-unbound', statusInfo: STATUS_INFO.disconnected };
  if (get('has-inventory')?.status !== 'success')
    return { status: 'discovering-unbound', statusInfo: STATUS_INFO.discovering };
  if (SUFFICIENT_TO_BE_BOUND.some((id) => get(id)?.status !== 'success')) {
    return {
      status: 'insufficient-unbound',
      statusInfo: STATUS_INFO.insufficient.replace('$FAILING_VALIDATIONS', failingValidations(validations)),
    };
  }
  return { status: 'known-unbound', statusInfo: STATUS_INFO.readyToBeBound };
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
  const results = runValidations(h, now, maxDisconnectionMs);
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
