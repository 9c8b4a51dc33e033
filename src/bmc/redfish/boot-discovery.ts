// The `boot-discovery` sequence over a RedfishClient: read power; eject every slot holding media
// or claiming Inserted; insert the ISO URL (HTTPS when the BMC needs it) with the profile's method
// and payload, falling back through slots; one-time boot override to CD; power on or restart.
// Returns what each step did — no persistence; phase 2 wraps it in a job.
//
// Resuming: `startAt` skips the steps before it (reported `skipped`). Each step re-reads what it
// acts on, so re-running one that was interrupted is safe — except `power`, which restarts again;
// a job must record `power` as done as soon as its call returns.
// With `bootMethod: 'http'` (UEFI HTTP Boot, no media): eject and insert write nothing (insert
// picks the URL), boot-override plans the vendor's way and refuses an unsupported BMC before its
// first write (http-boot-plan.ts), then stages the BIOS attributes when the vendor needs them and
// sets the one-time UefiHttp override; power is the same.
// Does NOT: follow the host's boot (reads of the ISO, registration): phase 2 does, from boot events.
import type { BootMode } from './boot-override.js';
import type { BmcInventory, RedfishClient } from './client.js';
import { RedfishError } from './errors.js';
import { type BootMethod, defaultBootMethod } from './http-boot-plan.js';

export const BOOT_DISCOVERY_STEPS = ['discover', 'read-power', 'eject', 'insert', 'boot-override', 'power'] as const;
export type BootDiscoveryStep = (typeof BOOT_DISCOVERY_STEPS)[number];

export interface BootDiscoveryRequest {
  /** The ISO's http:// URL (a short-token URL minted for this boot). */
  imageUrl?: string;
  /** The same ISO over https://; used when the BMC mounts only HTTPS, or when no http URL is given. */
  imageHttpsUrl?: string;
  /** Boot mode of the one-time override; default UEFI. */
  bootMode?: BootMode;
  /**
   * How the host reads the ISO: its BMC's virtual CD (default), UEFI HTTP Boot of the URL, or
   * `auto`: chosen at the eject step from the slots and boot targets the BMC lists (defaultBootMethod).
   */
  bootMethod?: BootMethod | 'auto';
}

export interface StepResult {
  step: BootDiscoveryStep;
  status: 'done' | 'skipped' | 'failed';
  /** What happened, in words ("ejected slot 1", "inserted into CD1 by POST", "ForceRestart"). */
  detail: string;
  /** Structured outcome for the job record (slot, method, actions...). */
  data?: Record<string, unknown>;
  startedAt: Date;
  ms: number;
  /** Redfish calls the step made, retries included, and how many were retries. */
  calls: number;
  retries: number;
  error?: RedfishError;
  /** discover: the inventory it read (a caller stores it before the next step). */
  inventory?: BmcInventory;
}

export interface BootDiscoveryResult {
  ok: boolean;
  steps: StepResult[];
  /** The step that failed, when one did. */
  failedStep?: BootDiscoveryStep;
  error?: RedfishError;
  /** Inventory read by `discover` (undefined when it was skipped or failed). */
  inventory?: BmcInventory;
  /** The URL inserted. */
  imageUrl?: string;
}

export interface BootDiscoveryOptions {
  startAt?: BootDiscoveryStep;
  /** Called after each step (done, skipped or failed), e.g. to persist it. */
  onStep?: (result: StepResult) => void | Promise<void>;
}

export async function runBootDiscovery(
  client: RedfishClient,
  request: BootDiscoveryRequest,
  options: BootDiscoveryOptions = {},
): Promise<BootDiscoveryResult> {
  const result: BootDiscoveryResult = { ok: true, steps: [] };
  let method: BootMethod | undefined =
    request.bootMethod === 'auto' ? undefined : (request.bootMethod ?? 'virtual-media');
  const methodOf = async (step: BootDiscoveryStep): Promise<BootMethod> =>
    (method ??= defaultBootMethod({
      profile: (await client.profile(step)).id,
      virtualMediaSlots: (await client.readSlots(step)).length,
      allowedTargets: (await client.readSystem(step)).boot.allowedTargets,
    }));
  const chooseUrl = async (step: BootDiscoveryStep): Promise<string> => {
    const url = await client.chooseImageUrl(
      {
        ...(request.imageUrl ? { http: request.imageUrl } : {}),
        ...(request.imageHttpsUrl ? { https: request.imageHttpsUrl } : {}),
      },
      step,
    );
    result.imageUrl = url;
    return url;
  };
  const firstIndex = options.startAt ? BOOT_DISCOVERY_STEPS.indexOf(options.startAt) : 0;
  const run: Record<BootDiscoveryStep, () => Promise<{ detail: string; data?: Record<string, unknown> }>> = {
    discover: async () => {
      const inventory = await client.inventory('discover');
      result.inventory = inventory;
      return {
        detail: `profile ${inventory.profile.id} (${inventory.profile.reason}); ${inventory.virtualMedia.length} slot(s), ${inventory.macs.length} MAC(s)`,
        data: { profile: inventory.profile.id, macs: inventory.macs, serialNumber: inventory.system.serialNumber },
      };
    },
    'read-power': async () => {
      const system = await client.readSystem('read-power');
      return { detail: `power ${system.powerState ?? '(unknown)'}`, data: { powerState: system.powerState } };
    },
    eject: async () => {
      if ((await methodOf('eject')) === 'http')
        return { detail: 'HTTP boot: no virtual media used, slots left as they are', data: { method: 'http' } };
      const ejected = await client.ejectAll('eject');
      const detail =
        ejected.ejected.length > 0 ? `ejected slot(s) ${ejected.ejected.join(', ')}` : 'no slot held media';
      return { detail, data: { ...ejected } };
    },
    insert: async () => {
      const url = await chooseUrl('insert');
      if ((await methodOf('insert')) === 'http')
        return {
          detail: 'HTTP boot: the firmware reads the ISO URL itself (nothing inserted)',
          data: { method: 'http', url },
        };
      const inserted = await client.insert(url, 'insert');
      const via = inserted.alreadyInserted
        ? 'already there'
        : inserted.method === 'patch'
          ? 'by PATCH'
          : 'by InsertMedia';
      const fell =
        inserted.fellThrough.length > 0
          ? ` after ${inserted.fellThrough.map((f) => `slot ${f.slot} (${f.why})`).join(', ')}`
          : '';
      return {
        detail: `inserted into slot ${inserted.slot} ${via}${fell}`,
        data: { slot: inserted.slot, method: inserted.method, fellThrough: inserted.fellThrough, url },
      };
    },
    'boot-override': async () => {
      if ((await methodOf('boot-override')) === 'http') {
        const url = result.imageUrl ?? (await chooseUrl('boot-override')); // resumed after insert
        const boot = await client.setHttpBoot(url, request.bootMode ?? 'UEFI', 'boot-override');
        const how =
          boot.way === 'boot-uri'
            ? 'with HttpBootUri'
            : boot.way === 'dell-bios'
              ? `after BIOS attributes HttpDev1* (configuration job ${boot.biosJob ?? '?'}, applied at the reset)`
              : 'after BIOS attribute UrlBootFile (applied at the reset)';
        return {
          detail: `boot once from UefiHttp in UEFI mode ${how}`,
          data: {
            target: boot.target,
            mode: 'UEFI',
            way: boot.way,
            ...(boot.biosJob ? { biosJob: boot.biosJob } : {}),
          },
        };
      }
      const boot = await client.setBootOnce(request.bootMode ?? 'UEFI', 'boot-override');
      return { detail: `boot once from ${boot.target}${boot.mode ? ` in ${boot.mode} mode` : ''}`, data: { ...boot } };
    },
    power: async () => {
      const power = await client.powerOnOrRestart('power');
      return { detail: power.actions.join(' then '), data: { from: power.from, actions: power.actions } };
    },
  };

  for (const [index, step] of BOOT_DISCOVERY_STEPS.entries()) {
    const startedAt = new Date();
    const before = client.stats;
    let stepResult: StepResult;
    if (index < firstIndex || !result.ok) {
      stepResult = {
        step,
        status: 'skipped',
        detail: !result.ok ? `not run: ${result.failedStep} failed` : 'done earlier',
        startedAt,
        ms: 0,
        calls: 0,
        retries: 0,
      };
    } else {
      try {
        const outcome = await run[step]();
        stepResult = { step, status: 'done', ...outcome, ...costSince(client, before, startedAt) };
        if (step === 'discover' && result.inventory) stepResult.inventory = result.inventory;
      } catch (err) {
        // Anything but a RedfishError is a bug here, not a BMC's answer: let it surface.
        if (!(err instanceof RedfishError)) throw err;
        const error = err.inStep(step);
        result.ok = false;
        result.failedStep = step;
        result.error = error;
        stepResult = { step, status: 'failed', detail: error.message, error, ...costSince(client, before, startedAt) };
      }
    }
    result.steps.push(stepResult);
    await options.onStep?.(stepResult);
  }
  return result;
}

function costSince(
  client: RedfishClient,
  before: { calls: number; retries: number },
  startedAt: Date,
): { startedAt: Date; ms: number; calls: number; retries: number } {
  const now = client.stats;
  return {
    startedAt,
    ms: Date.now() - startedAt.getTime(),
    calls: now.calls - before.calls,
    retries: now.retries - before.retries,
  };
}
