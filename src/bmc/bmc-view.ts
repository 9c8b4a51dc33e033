// The BMC extension's JSON shapes (snake_case, as the assisted v2 API): a BMC with its state, its
// last job and steps and its out-of-band inventory; a job. What the API returns, the CLI prints
// and a console page can show. Pure.
//
// state: `busy` while a job is queued, running or following (state_info: the action and its
// current step, with what a waiting step waits for), `error` when the last job failed (state_info:
// its reason), `ready` when it succeeded or was cancelled, `new` before any job. The inventory's
// power and media are what the BMC last said: a full read, or a job's step since
// (`inventory_at` is when).
// Does NOT: hold credentials in any form (a BMC shows only whether it has them), or a token: a
// virtual media slot's image URL and a job's inserted URL are shown redacted.
import { redactUrl } from '../redact.js';
import type { BmcInventory } from './redfish/index.js';
import type { BmcRecord, JobRecord } from './store/records.js';
import { effectiveBootMethod } from './boot-method.js';

export interface JobView {
  id: string;
  bmc_id: string;
  action: string;
  state: string;
  error: string | null;
  infra_env_id: string | null;
  host_id: string | null;
  steps: {
    name: string;
    status: string;
    detail: string;
    started_at?: string;
    finished_at?: string;
    calls?: number;
    retries?: number;
    data?: Record<string, unknown>;
  }[];
  /** Times a replica took the job up (more than 1: resumed after a restart). */
  claims: number;
  /** Times it was taken up from a replica that died or stalled while running it. */
  lost_leases: number;
  /** When a cancel was asked for (the job ends at its next step boundary). */
  cancel_requested_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface InventoryView {
  profile: { id: string; label: string; reason: string; overridden: boolean };
  vendor: string | null;
  manufacturer: string | null;
  model: string | null;
  serial_number: string | null;
  system_uuid: string | null;
  power_state: string | null;
  macs: string[];
  boot: { override_enabled: string | null; override_target: string | null; override_mode: string | null };
  virtual_media: { id: string; media_types: string[]; inserted: boolean | null; image: string | null }[];
  managers: { model: string | null; firmware_version: string | null }[];
  redfish_version: string | null;
}

export interface BmcView {
  id: string;
  name: string;
  address: string;
  tls: { verify: 'system' | 'ca' | 'insecure' };
  profile: { override: string | null; detected: string | null };
  infra_env_id: string | null;
  boot_mode: string;
  /** As chosen: virtual-media, http, or auto. */
  boot_method: string;
  /** What a boot job uses now: the chosen method, or auto's choice from the inventory (null before one was read). */
  boot_method_effective: string | null;
  eject: string;
  /** Whether credentials are stored (never what they are). */
  credentials: 'stored' | 'missing';
  state: 'new' | 'busy' | 'ready' | 'error';
  state_info: string;
  inventory: InventoryView | null;
  inventory_at: string | null;
  last_job: JobView | null;
  created_at: string;
  updated_at: string;
}

const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

export function renderInventory(inv: BmcInventory): InventoryView {
  return {
    profile: { ...inv.profile },
    vendor: orNull(inv.vendor),
    manufacturer: orNull(inv.system.manufacturer),
    model: orNull(inv.system.model),
    serial_number: orNull(inv.system.serialNumber),
    system_uuid: orNull(inv.system.uuid),
    power_state: orNull(inv.system.powerState),
    macs: [...inv.macs],
    boot: {
      override_enabled: orNull(inv.boot.enabled),
      override_target: orNull(inv.boot.target),
      override_mode: orNull(inv.boot.mode),
    },
    virtual_media: inv.virtualMedia.map((s) => ({
      id: s.id,
      media_types: [...s.mediaTypes],
      inserted: orNull(s.inserted),
      image: s.image === undefined ? null : redactUrl(s.image),
    })),
    managers: inv.managers.map((m) => ({ model: orNull(m.model), firmware_version: orNull(m.firmwareVersion) })),
    redfish_version: orNull(inv.redfishVersion),
  };
}

export function renderJob(job: JobRecord): JobView {
  return {
    id: job.id,
    bmc_id: job.bmcId,
    action: job.action,
    state: job.state,
    error: job.error,
    infra_env_id: job.infraEnvId,
    host_id: job.hostId,
    steps: job.steps.map((s) => ({
      name: s.name,
      status: s.status,
      detail: s.detail,
      ...(s.startedAt ? { started_at: s.startedAt } : {}),
      ...(s.finishedAt ? { finished_at: s.finishedAt } : {}),
      ...(s.calls !== undefined ? { calls: s.calls } : {}),
      ...(s.retries !== undefined ? { retries: s.retries } : {}),
      ...(s.data ? { data: s.data } : {}),
    })),
    claims: job.claims,
    lost_leases: job.lostLeases,
    cancel_requested_at: job.params.cancelRequestedAt ?? null,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

export function bmcState(last: JobRecord | undefined): { state: BmcView['state']; info: string } {
  if (!last) return { state: 'new', info: 'no job yet' };
  if (last.state === 'queued') return { state: 'busy', info: `${last.action} queued` };
  if (last.state === 'running' || last.state === 'following') {
    const running = last.steps.find((s) => s.status === 'running');
    const step = running ?? last.steps.find((s) => s.status === 'pending');
    const waits = running?.detail ? `: ${running.detail}` : '';
    return { state: 'busy', info: `${last.action}: ${step?.name ?? last.state}${waits}` };
  }
  if (last.state === 'failed') return { state: 'error', info: last.error ?? `${last.action} failed` };
  if (last.state === 'cancelled') return { state: 'ready', info: `${last.action} ${last.error ?? 'cancelled'}` };
  const lastWords = [...last.steps].reverse().find((s) => s.detail !== '')?.detail ?? '';
  return { state: 'ready', info: `${last.action} succeeded${lastWords ? `: ${lastWords}` : ''}` };
}

export function renderBmc(bmc: BmcRecord, last: JobRecord | undefined): BmcView {
  const { state, info } = bmcState(last);
  return {
    id: bmc.id,
    name: bmc.name,
    address: bmc.address,
    tls: { verify: bmc.tlsVerify },
    profile: { override: bmc.profileOverride, detected: bmc.inventory?.profile.id ?? null },
    infra_env_id: bmc.infraEnvId,
    boot_mode: bmc.bootMode,
    boot_method: bmc.bootMethod ?? 'auto',
    boot_method_effective: effectiveBootMethod(bmc) ?? null,
    eject: bmc.eject,
    credentials: bmc.credentials ? 'stored' : 'missing',
    state,
    state_info: info,
    inventory: bmc.inventory ? renderInventory(bmc.inventory) : null,
    inventory_at: bmc.inventoryAt?.toISOString() ?? null,
    last_job: last ? renderJob(last) : null,
    created_at: bmc.createdAt.toISOString(),
    updated_at: bmc.updatedAt.toISOString(),
  };
}
