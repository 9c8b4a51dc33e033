// Agent-facing and user-facing host operations: register, heartbeat, step replies, update, delete, progress.
//
// Each runs in one transaction with the host row locked, then re-evaluates the
// host's state. Registration after installation is refused with 409 (upstream's
// wording). Only the `inventory` step reply is interpreted; other replies are accepted.
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import type { Repository } from '../db/repository.js';
import { events } from '../events/events.js';
import type { HostProgress, HostRecord } from '../model.js';
import { refreshHost, setStatus, STATUS_INFO } from './state.js';
import { hostnameError, parseInventory, realHostname } from './validations.js';
import { assertCleanJson, assertCleanText } from '../validation/text.js';

const INSTALL_DONE_STAGES = new Set(['Done']);

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
      status: 'discovering',
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
      await setStatus(repo, h, 'discovering', STATUS_INFO.discovering, now);
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
    if (typeof hostname === 'string') assertCleanText('inventory.hostname', hostname, 'line');
    inventory = reply.output;
  }
  await ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    const now = ctx.now();
    const hostnameBefore = realHostname(h, parseInventory(h.inventory));
    h.checkedInAt = now;
    if (inventory !== undefined) {
      h.inventory = inventory;
      h.updatedAt = now;
    }
    await refreshHost(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
    if (realHostname(h, parseInventory(h.inventory)) !== hostnameBefore) {
      await refreshSiblings(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
    }
  });
}

/** Other hosts' hostname-unique result may change when a host's name does. */
async function refreshSiblings(repo: Repository, h: HostRecord, now: Date, maxDisconnectionMs: number): Promise<void> {
  for (const other of await repo.listHosts(h.infraEnvId)) {
    if (other.id !== h.id) await refreshHost(repo, other, now, maxDisconnectionMs);
  }
}

export async function updateHost(
  ctx: CoreContext,
  infraEnvId: string,
  hostId: string,
  body: Record<string, unknown>,
): Promise<HostRecord> {
  const name = body.host_name;
  if (name !== undefined && name !== null) {
    if (typeof name !== 'string') throw new BadRequestError('host_name must be a string');
    const err = hostnameError(name);
    if (err) throw new BadRequestError(err);
  }
  const role = body.host_role;
  if (
    role !== undefined &&
    role !== null &&
    (typeof role !== 'string' || !['auto-assign', 'master', 'arbiter', 'worker'].includes(role))
  ) {
    throw new BadRequestError(`host_role ${JSON.stringify(role)} is not valid`);
  }
  return ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    const now = ctx.now();
    if (typeof name === 'string') h.requestedHostname = name;
    if (typeof role === 'string') h.role = role;
    h.updatedAt = now;
    const updated = await refreshHost(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
    await refreshSiblings(repo, h, now, ctx.settings.hostMaxDisconnectionMs);
    return updated;
  });
}

export async function deleteHost(ctx: CoreContext, infraEnvId: string, hostId: string): Promise<void> {
  await ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    await repo.deleteHost(infraEnvId, hostId);
    await events.hostDeregistered(repo, ctx.now(), h);
    await refreshSiblings(repo, h, ctx.now(), ctx.settings.hostMaxDisconnectionMs);
  });
}

/** v2UpdateHostInstallProgress: `Done` marks the host installed; other stages mean installing. */
export async function updateProgress(
  ctx: CoreContext,
  infraEnvId: string,
  hostId: string,
  body: Record<string, unknown>,
): Promise<void> {
  const stage = body.current_stage;
  if (typeof stage !== 'string' || stage === '') throw new BadRequestError('current_stage is required');
  assertCleanText('current_stage', stage, 'line');
  if (body.progress_info !== undefined && body.progress_info !== null) {
    if (typeof body.progress_info !== 'string') throw new BadRequestError('progress_info must be a string');
    assertCleanText('progress_info', body.progress_info, 'line');
  }
  await ctx.repo.transaction(async (repo) => {
    const h = await lockedHost(repo, infraEnvId, hostId);
    const now = ctx.now();
    const progress: HostProgress = {
      current_stage: stage,
      ...(typeof body.progress_info === 'string' ? { progress_info: body.progress_info } : {}),
      stage_started_at: h.progress?.current_stage === stage ? h.progress.stage_started_at : now.toISOString(),
      stage_updated_at: now.toISOString(),
    };
    h.progress = progress;
    h.checkedInAt = now;
    if (stage === 'Failed')
      await setStatus(repo, h, 'error', `Failed - ${String(body.progress_info ?? '')}`.trim(), now);
    else if (INSTALL_DONE_STAGES.has(stage)) await setStatus(repo, h, 'installed', STATUS_INFO.installed, now);
    else await setStatus(repo, h, 'installing-in-progress', stage, now);
    await repo.upsertHost(h);
  });
}
