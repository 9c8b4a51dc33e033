// Agent-facing and user-facing host operations: register, heartbeat, step replies, update, delete,
// install progress, logs progress, reset.
//
// Each runs in one transaction with the host row locked, then re-evaluates the host's state.
// Every host is unbound (no clusters here), so install progress is refused as upstream refuses it
// for unbound hosts (400, V2UpdateHostInstallProgressInternal). Hosts left in installation states
// by earlier releases (which accepted that progress) are brought back by `resetHost`; upstream's
// v2ResetHost answers 409 for every other host, and so does this. Registration after
// installation is refused with 409 (upstream's wording). Only the `inventory` step reply is
// interpreted; other replies are accepted.
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import type { Repository } from '../db/repository.js';
import { events } from '../events/events.js';
import type { HostRecord, HostStatus } from '../model.js';
import { refreshHost, setStatus, STATUS_INFO } from './state.js';
import { hostnameError } from './validations.js';
import { assertCleanJson, assertCleanText } from '../../platform/api/clean-text.js';

/** States only earlier releases could put a host in; resetHost takes a host out of them. */
const LEGACY_INSTALL_STATUSES: readonly HostStatus[] = ['installing-in-progress', 'installed', 'error'];

async function lockedHost(repo: Repository, infraEnvId: string, hostId: string): Promise<HostRecord> {
  const h = await repo.getHost(infraEnvId, hostId, { forUpdate: true });
  if (!h) throw new NotFoundError(`host ${hostId} not found in infra-env ${infraEnvId}`);
  return h;
}

export async function registerHost(
  ctx: CoreContext,
  infraEnvId: string,
  hostId: string,
  agentVersion: string,
): Promise<HostRecord> {
  const now = ctx.now();
  const refused = await ctx.repo.transaction(async (repo) => {
    const infraEnv = await repo.getInfraEnv(infraEnvId, { forUpdate: true });
    if (!infraEnv) throw new NotFoundError(`infra-env ${infraEnvId} not found`);
    const existing = await repo.getHost(infraEnvId, hostId, { forUpdate: true });
    if (existing?.status === 'installed') {
      await events.hostRegistrationFailed(repo, now, existing, 'the host is already installed');
      return true;
    }
    const h: HostRecord = existing ?? {
      infraEnvId,
      id: hostId,
      status: 'discovering-unbound',
      statusInfo: STATUS_INFO.discovering,
      validationsInfo: '',
      inventory: null,
      requestedHostname: '',
      role: 'auto-assign',
      discoveryAgentVersion: agentVersion,
      progress: null,
      hostTimestamp: null,
      checkedInAt: now,
      registeredAt: now,
      statusUpdatedAt: now,
      createdAt: now,
      updatedAt: now,
      logsInfo: '',
      logsStartedAt: null,
    };
    h.registeredAt = now;
    h.checkedInAt = now;
    h.updatedAt = now;
    if (agentVersion) h.discoveryAgentVersion = agentVersion;
    if (existing) {
      if (existing.status === 'installing-in-progress') {
        await setStatus(repo, h, 'error', STATUS_INFO.restartedDuringInstall, now);
        await repo.upsertHost(h);
        return false;
      }
      // A re-registering host may have new hardware: forget the old inventory.
      h.inventory = null;
      await setStatus(repo, h, 'discovering-unbound', STATUS_INFO.discovering, now);
    }
    await repo.upsertHost(h);
    await events.hostRegistered(repo, now, h);
    await refreshHost(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
    return false;
  });
  if (refused) {
    throw new ConflictError(
      'Host is trying to register after the cluster has already been installed. That most probably means that the host is ' +
        'booting from the installation ISO, and therefore not effectively joining the cluster. The request will be ignored. ' +
        'Fix the boot order and reboot the host.',
    );
  }
  const h = await ctx.repo.getHost(infraEnvId, hostId);
  if (!h) throw new NotFoundError(`host ${hostId} not found in infra-env ${infraEnvId}`);
  return h;
}

/**
 * The heartbeat: records check-in time and lets a disconnected host come back. A connected
 * host takes a one-statement fast path (thousands of agents poll); validations of connected
 * hosts are kept current by the monitor and by inventory replies, not by check-ins.
 */
export async function heartbeat(
  ctx: CoreContext,
  infraEnvId: string,
  hostId: string,
  hostTimestamp: number | undefined,
  agentVersion: string | undefined,
): Promise<Pick<HostRecord, 'id' | 'status'>> {
  const fast = await ctx.repo.checkInConnectedHost(infraEnvId, hostId, ctx.now(), hostTimestamp, agentVersion);
  if (fast) return fast;
  return ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    const now = ctx.now();
    h.checkedInAt = now;
    if (hostTimestamp !== undefined) h.hostTimestamp = hostTimestamp;
    if (agentVersion) h.discoveryAgentVersion = agentVersion;
    return refreshHost(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
  });
}

export interface StepReply {
  step_type?: string;
  step_id?: string;
  exit_code?: number;
  output?: string;
  error?: string;
}

export async function postStepReply(
  ctx: CoreContext,
  infraEnvId: string,
  hostId: string,
  reply: StepReply,
): Promise<void> {
  let inventory: string | undefined;
  if (reply.step_type === 'inventory' && (reply.exit_code ?? 0) === 0) {
    if (typeof reply.output !== 'string' || reply.output === '')
      throw new BadRequestError('inventory reply has no output');
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.output);
    } catch {
      throw new BadRequestError('inventory reply output is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new BadRequestError('inventory must be a JSON object');
    assertCleanJson('inventory', parsed); // its strings end up in events and validations
    const hostname = (parsed as { hostname?: unknown }).hostname;
    // the inventory model's hostname is a string (upstream's typed unmarshal refuses anything else);
    // it ends up in status_info, events and validations
    if (hostname !== undefined && hostname !== null && typeof hostname !== 'string')
      throw new BadRequestError('inventory.hostname must be a string');
    if (typeof hostname === 'string') assertCleanText('inventory.hostname', hostname, 'line');
    inventory = reply.output;
  }
  await ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    const now = ctx.now();
    h.checkedInAt = now;
    if (inventory !== undefined) {
      h.inventory = inventory;
      h.updatedAt = now;
    }
    await refreshHost(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
  });
}

export async function updateHost(
  ctx: CoreContext,
  infraEnvId: string,
  hostId: string,
  body: Record<string, unknown>,
): Promise<HostRecord> {
  // types and the host_role enum were bound against host-update-params (validation/body-models.ts)
  const name = body.host_name;
  if (typeof name === 'string') {
    const err = hostnameError(name);
    if (err) throw new BadRequestError(err);
  }
  const role = body.host_role;
  return ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    const now = ctx.now();
    if (typeof name === 'string') h.requestedHostname = name;
    if (typeof role === 'string') h.role = role;
    h.updatedAt = now;
    return refreshHost(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
  });
}

export async function deleteHost(ctx: CoreContext, infraEnvId: string, hostId: string): Promise<void> {
  await ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    await repo.deleteHost(infraEnvId, hostId);
    await events.hostDeregistered(repo, ctx.now(), h);
  });
}

/**
 * v2UpdateHostInstallProgress for an unbound host, as upstream answers it: 404 for an unknown
 * host, else 400 `host <id> is not bound to any cluster, cannot update progress`. Nothing is
 * stored (the body was already bound against host-progress by the handler).
 */
export async function updateProgress(ctx: CoreContext, infraEnvId: string, hostId: string): Promise<never> {
  const h = await ctx.repo.getHost(infraEnvId, hostId);
  if (!h) throw new NotFoundError(`host ${hostId} not found in infra-env ${infraEnvId}`);
  throw new BadRequestError(`host ${hostId} is not bound to any cluster, cannot update progress`, {
    infraEnvId,
    hostId,
  });
}

/** v2UpdateHostLogsProgress: records logs_info (and logs_started_at on `requested`), any host state. */
export async function updateLogsProgress(
  ctx: CoreContext,
  infraEnvId: string,
  hostId: string,
  logsState: string,
): Promise<void> {
  await ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    const now = ctx.now();
    h.logsInfo = logsState;
    if (logsState === 'requested') h.logsStartedAt = now;
    h.updatedAt = now;
    await repo.upsertHost(h);
  });
}

/**
 * v2ResetHost. A host that an earlier release left in an installation state (it accepted install
 * progress for unbound hosts) goes back to discovering-unbound, progress cleared, and is
 * re-evaluated; any other host gets upstream's 409 for hosts not added to an existing cluster.
 */
export async function resetHost(ctx: CoreContext, infraEnvId: string, hostId: string): Promise<HostRecord> {
  return ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    if (!LEGACY_INSTALL_STATUSES.includes(h.status))
      throw new ConflictError('method only allowed when adding hosts to an existing cluster', { infraEnvId, hostId });
    const now = ctx.now();
    h.progress = null;
    await setStatus(repo, h, 'discovering-unbound', STATUS_INFO.discovering, now);
    return refreshHost(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
  });
}
