// Event records for InfraEnv and host changes, with upstream's names and message wording.
//
// Written in the same transaction as the change they describe. Listing and the
// Severity-Count headers live in handlers/events.ts. Messages name hosts by
// hostname (or id), never secrets.
import type { Repository } from '../db/repository.js';
import type { HostRecord, HostStatus, Severity } from '../model.js';

export function hostDisplayName(h: HostRecord): string {
  if (h.requestedHostname) return h.requestedHostname;
  if (h.inventory) {
    try {
      const inv = JSON.parse(h.inventory) as { hostname?: unknown };
      if (typeof inv.hostname === 'string' && inv.hostname) return inv.hostname;
    } catch {
      /* fall back to the id */
    }
  }
  return h.id;
}

async function add(
  repo: Repository,
  now: Date,
  name: string,
  severity: Severity,
  message: string,
  ids: { infraEnvId?: string; hostId?: string },
): Promise<void> {
  await repo.insertEvent({
    name,
    severity,
    message,
    eventTime: now,
    infraEnvId: ids.infraEnvId ?? null,
    hostId: ids.hostId ?? null,
    clusterId: null,
  });
}

export const events = {
  infraEnvRegistered: (repo: Repository, now: Date, infraEnvId: string) =>
    add(repo, now, 'infra_env_registered', 'info', 'Registered infra env', { infraEnvId }),
  infraEnvDeregistered: (repo: Repository, now: Date, infraEnvId: string) =>
    add(repo, now, 'infra_env_deregistered', 'info', 'Deregistered infra env', { infraEnvId }),
  infraEnvUpdated: (repo: Repository, now: Date, infraEnvId: string) =>
    add(repo, now, 'infra_env_updated', 'info', 'Updated infra env', { infraEnvId }),
  signingKeyRegenerated: (repo: Repository, now: Date, infraEnvId: string) =>
    add(repo, now, 'infra_env_signing_key_regenerated', 'info', 'Regenerated the infra env image token signing key', {
      infraEnvId,
    }),
  hostRegistered: (repo: Repository, now: Date, h: HostRecord) =>
    add(repo, now, 'host_registration_succeeded', 'info', `Host ${hostDisplayName(h)}: Successfully registered`, {
      infraEnvId: h.infraEnvId,
      hostId: h.id,
    }),
  hostRegistrationFailed: (repo: Repository, now: Date, h: HostRecord, reason: string) =>
    add(repo, now, 'host_registration_failed', 'error', `Host ${hostDisplayName(h)}: Failed to register: ${reason}`, {
      infraEnvId: h.infraEnvId,
      hostId: h.id,
    }),
  hostStatusUpdated: (repo: Repository, now: Date, h: HostRecord, from: HostStatus) =>
    add(
      repo,
      now,
      'host_status_updated',
      statusSeverity(h.status),
      `Host ${hostDisplayName(h)}: updated status from ${from} to ${h.status} (${h.statusInfo})`,
      { infraEnvId: h.infraEnvId, hostId: h.id },
    ),
  hostDeregistered: (repo: Repository, now: Date, h: HostRecord) =>
    add(repo, now, 'host_deregistered', 'info', `Host ${hostDisplayName(h)} deregistered`, {
      infraEnvId: h.infraEnvId,
      hostId: h.id,
    }),
};

function statusSeverity(s: HostStatus): Severity {
  if (s === 'error') return 'error';
  if (s === 'insufficient-unbound' || s === 'disconnected-unbound') return 'warning';
  return 'info';
}
