// A Redfish client for one BMC: discovery, inventory, and the operations a boot needs — eject,
// insert with slot and payload fallback, one-time boot override, power — each ending in either a
// result or a RedfishError that names the BMC and the step.
//
// HTTP boot (no media): setHttpBoot (per vendor, http-boot-plan.ts) and clearBootOverride.
//
// Every operation reads what it acts on first (slots, power state), so calling it again after an
// interruption does the right thing: eject skips empty slots, insert skips a slot already showing
// the image, the boot override is a PATCH to the same values. Power is the exception a caller must
// record: a second restart restarts again.
// Does NOT: persist anything, hold a lock, or decide what the ISO URL is (phase 2's job engine).
// Next: boot-discovery.ts runs the operations as one sequence.
import { setTimeout as delay } from 'node:timers/promises';
import { type BmcAddress, parseBmcAddress } from './address.js';
import { type BootMode, planBootOverride } from './boot-override.js';
import { type BmcTopology, discoverTopology, readMacs, readSlotAt, readSlots, readSystemAt } from './discovery.js';
import { RedfishError } from './errors.js';
import type { CallTimeouts } from './http-call.js';
import { clearOverrideBody, type HttpBootWay, httpBootVendor, planHttpBoot } from './http-boot-plan.js';
import { adjustInsert, holdsMedia, type MediaRequest, planEject, planInsert } from './insert-payload.js';
import {
  INSERT_VERIFY_INTERVAL_MS,
  INSERT_VERIFY_READS,
  MAX_INVENTORY_BYTES,
  MAX_PAYLOAD_ADJUSTMENTS,
  POWER_OFF_POLL_INTERVAL_MS,
  POWER_OFF_POLLS,
} from './limits.js';
import { planPower, type ResetType } from './power-plan.js';
import type { ProfileId, VendorProfile } from './profiles.js';
import { readBios, type SlotInfo, type SystemInfo } from './resources.js';
import { planSlots } from './slot-plan.js';
import { type BmcTrust, resolveTrust } from './tls-trust.js';
import { type CallStats, type RedfishCallEvent, RedfishTransport } from './transport.js';

export interface RedfishClientOptions {
  /** The BMC's name: every error and log event carries it. */
  name: string;
  /** A Redfish root or System URL, or a bare host (address.ts). */
  address: string;
  username: string;
  password: string;
  trust: BmcTrust;
  /** Use this profile instead of detecting one. */
  profile?: ProfileId;
  timeouts?: Partial<CallTimeouts>;
  /** Delays before each retry of a 5xx or reset (default RETRY_DELAYS_MS). */
  retryDelaysMs?: readonly number[];
  maxResponseBytes?: number;
  /** Every wait (retries, insert verification, power polling) goes through this; tests make it instant. */
  sleep?: (ms: number) => Promise<void>;
  log?: (event: RedfishCallEvent) => void;
}

export interface BmcInventory {
  address: string;
  profile: { id: ProfileId; label: string; reason: string; overridden: boolean };
  vendor: string | undefined;
  product: string | undefined;
  redfishVersion: string | undefined;
  system: {
    path: string;
    id: string | undefined;
    manufacturer: string | undefined;
    model: string | undefined;
    serialNumber: string | undefined;
    uuid: string | undefined;
    powerState: string | undefined;
  };
  managers: { path: string; model: string | undefined; firmwareVersion: string | undefined }[];
  /** NIC MACs from EthernetInterfaces, lower case. */
  macs: string[];
  boot: {
    enabled: string | undefined;
    target: string | undefined;
    mode: string | undefined;
    allowedTargets: string[] | undefined;
    allowedModes: string[] | undefined;
  };
  resetTypes: string[] | undefined;
  virtualMedia: {
    id: string;
    path: string;
    location: string;
    mediaTypes: string[];
    inserted: boolean | undefined;
    image: string | undefined;
  }[];
}

export interface EjectResult {
  /** Slots that held media (or claimed Inserted) and were ejected. */
  ejected: string[];
  /** Slots that were empty already. */
  empty: string[];
}

export interface InsertResult {
  slot: string;
  slotPath: string;
  method: 'action' | 'patch';
  /** The body that worked. */
  body: Record<string, unknown>;
  /** True when the slot already showed the image (nothing was sent). */
  alreadyInserted: boolean;
  /** Every slot tried before, with what it answered. */
  fellThrough: { slot: string; why: string }[];
}

export interface PowerResult {
  from: 'on' | 'off';
  actions: ResetType[];
  why: string;
}

export class RedfishClient {
  readonly name: string;
  readonly address: BmcAddress;
  private readonly transport: RedfishTransport;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly profileOverride: ProfileId | undefined;
  private cached: BmcTopology | undefined;

  private constructor(options: RedfishClientOptions, address: BmcAddress, transport: RedfishTransport) {
    this.name = options.name;
    this.address = address;
    this.transport = transport;
    this.sleep = options.sleep ?? ((ms) => delay(ms).then(() => undefined));
    this.profileOverride = options.profile;
  }

  /** Checks the address and the TLS settings (reads the CA file); no network yet. */
  static async open(options: RedfishClientOptions): Promise<RedfishClient> {
    const address = parseBmcAddress(options.name, options.address);
    const tls = await resolveTrust(options.name, options.trust);
    const transport = new RedfishTransport({
      bmc: options.name,
      origin: address.origin,
      username: options.username,
      password: options.password,
      tls,
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.retryDelaysMs ? { retryDelaysMs: options.retryDelaysMs } : {}),
      ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    return new RedfishClient(options, address, transport);
  }

  /** Calls and retries made so far (the bench's "Redfish calls per host"). */
  get stats(): Readonly<CallStats> {
    return { ...this.transport.stats };
  }

  /** Root, System, Managers, VirtualMedia collections and the profile; read once, then cached. */
  async topology(step = 'discover'): Promise<BmcTopology> {
    this.cached ??= await this.wrap(step, () =>
      discoverTopology(this.transport, this.address, this.profileOverride, step),
    );
    return this.cached;
  }

  async profile(step = 'discover'): Promise<VendorProfile> {
    return (await this.topology(step)).profile;
  }

  /**
   * UEFI HTTP Boot of `url` at the next boot (http-boot-plan.ts): reads the System (and its Bios
   * for the BIOS ways), plans — refusing with `unsupported` before any write — then sends the
   * stage writes and the one-time UefiHttp override.
   */
  async setHttpBoot(
    url: string,
    mode: BootMode = 'UEFI',
    step = 'boot-override',
  ): Promise<{ way: HttpBootWay; target: 'UefiHttp'; biosJob?: string }> {
    const topology = await this.topology(step);
    const system = await this.readSystem(step);
    const way = httpBootVendor(topology.profile.id).way;
    const needsBios = way === 'dell-bios' || (way === 'hpe-bios' && !system.boot.hasHttpBootUri);
    const bios =
      needsBios && system.biosRef
        ? await this.wrap(step, async () => {
            const path = this.transport.pathOf(step, system.biosRef!);
            return readBios(path, (await this.transport.getResource(step, path)).doc);
          })
        : undefined;
    const plan = await this.wrap(step, async () =>
      planHttpBoot(
        this.name,
        { profile: topology.profile.id, system, bios, managerPath: topology.managers[0]?.path },
        url,
        mode,
      ),
    );
    let biosJob: string | undefined;
    for (const write of plan.stage) {
      const response = await this.wrap(step, () =>
        this.transport.request(step, write.method, write.path, write.body, {}),
      );
      if (write.method === 'POST') biosJob = response.location?.split('/').pop() ?? 'created';
    }
    await this.send(step, plan.override);
    return { way: plan.way, target: 'UefiHttp', ...(biosJob ? { biosJob } : {}) };
  }

  /** Clears a pending one-time override (after an HTTP boot: nothing left for the next power-on). */
  async clearBootOverride(step = 'clear-override'): Promise<{ was: string | undefined }> {
    const system = await this.readSystem(step);
    if ((system.boot.enabled ?? 'Disabled') === 'Disabled') return { was: system.boot.target };
    await this.send(step, {
      method: 'PATCH',
      path: system.path,
      body: clearOverrideBody(),
      ...(system.etag ? { ifMatch: system.etag } : {}),
    });
    return { was: system.boot.target };
  }

  /** The System as it is now (power state, boot override, reset types). */
  async readSystem(step = 'read-system'): Promise<SystemInfo> {
    const topology = await this.topology(step);
    return this.wrap(step, () => readSystemAt(this.transport, topology.system.path, step));
  }

  /** Every virtual media slot as it is now. */
  async readSlots(step = 'read-slots'): Promise<SlotInfo[]> {
    const topology = await this.topology(step);
    return this.wrap(step, () => readSlots(this.transport, topology, step));
  }

  /**
   * Serial, model, power state, MACs, boot and reset capabilities, slots: what is known before the
   * host ever boots. At most MAX_INVENTORY_BYTES as JSON (`too-large` naming the bound otherwise).
   */
  async inventory(step = 'inventory'): Promise<BmcInventory> {
    const topology = await this.topology(step);
    const system = await this.readSystem(step);
    const macs = await this.wrap(step, () => readMacs(this.transport, system, step));
    const slots = await this.readSlots(step);
    const inventory: BmcInventory = {
      address: this.address.display,
      profile: {
        id: topology.profile.id,
        label: topology.profile.label,
        reason: topology.profileReason,
        overridden: topology.profileOverridden,
      },
      vendor: topology.root.vendor,
      product: topology.root.product,
      redfishVersion: topology.root.redfishVersion,
      system: {
        path: system.path,
        id: system.id,
        manufacturer: system.manufacturer,
        model: system.model,
        serialNumber: system.serialNumber,
        uuid: system.uuid,
        powerState: system.powerState,
      },
      managers: topology.managers.map((m) => ({ path: m.path, model: m.model, firmwareVersion: m.firmwareVersion })),
      macs,
      boot: {
        enabled: system.boot.enabled,
        target: system.boot.target,
        mode: system.boot.mode,
        allowedTargets: system.boot.allowedTargets,
        allowedModes: system.boot.allowedModes,
      },
      resetTypes: system.resetTypes,
      virtualMedia: slots.map((s) => ({
        id: s.id,
        path: s.path,
        location: s.location,
        mediaTypes: s.mediaTypes,
        inserted: s.inserted,
        image: s.image,
      })),
    };
    const bytes = Buffer.byteLength(JSON.stringify(inventory));
    if (bytes > MAX_INVENTORY_BYTES) {
      throw new RedfishError(
        { bmc: this.name, step, failure: 'too-large' },
        `the inventory is ${bytes.toLocaleString('en-US')} bytes, beyond MAX_INVENTORY_BYTES (${MAX_INVENTORY_BYTES.toLocaleString('en-US')}); not stored`,
      );
    }
    return inventory;
  }

  /**
   * The URL to insert: HTTPS when the profile mounts only HTTPS (iLO 7) or when no HTTP URL is
   * given; a clear `unsupported` error when HTTPS is needed and not given.
   */
  async chooseImageUrl(urls: { http?: string; https?: string }, step = 'insert'): Promise<string> {
    const profile = await this.profile(step);
    if (profile.httpsImageOnly) {
      if (urls.https) return urls.https;
      throw new RedfishError(
        { bmc: this.name, step, failure: 'unsupported' },
        `the ${profile.label} profile mounts only HTTPS URLs; no https:// image URL was given (serve the ISO over HTTPS)`,
      );
    }
    const url = urls.http ?? urls.https;
    if (!url) throw new RedfishError({ bmc: this.name, step, failure: 'bad-input' }, 'no image URL was given');
    return url;
  }

  /** Ejects every slot holding media or claiming Inserted (iDRAC keeps a stale Inserted until ejected). */
  async ejectAll(step = 'eject'): Promise<EjectResult> {
    const profile = await this.profile(step);
    const slots = await this.readSlots(step);
    const result: EjectResult = { ejected: [], empty: [] };
    for (const slot of slots) {
      if (!holdsMedia(slot)) {
        result.empty.push(slot.id);
        continue;
      }
      const request = planEject(profile, slot);
      if (typeof request === 'string') {
        throw new RedfishError(
          { bmc: this.name, step, failure: 'unsupported' },
          `slot ${slot.id} holds media but ${request}`,
        );
      }
      await this.send(step, request).catch(async (err: unknown) => {
        // An EjectMedia that refuses our `{}` body (415, or 400 naming the body): once more without one.
        if (err instanceof RedfishError && request.method === 'POST' && (err.status === 415 || err.status === 400)) {
          await this.wrap(step, () => this.transport.request(step, 'POST', request.path));
          return;
        }
        throw err;
      });
      result.ejected.push(slot.id);
    }
    return result;
  }

  /**
   * Inserts `imageUrl` into the first slot that takes it (slot-plan.ts order), adjusting the
   * payload when a 400 names a parameter (insert-payload.ts), going on to the next slot on 405
   * or another 400, and reading the slot back until it shows the image.
   */
  async insert(imageUrl: string, step = 'insert'): Promise<InsertResult> {
    const profile = await this.profile(step);
    if (profile.httpsImageOnly && !/^https:\/\//i.test(imageUrl)) {
      throw new RedfishError(
        { bmc: this.name, step, failure: 'unsupported' },
        `the ${profile.label} profile mounts only HTTPS URLs, not ${JSON.stringify(imageUrl.split(':')[0])}`,
      );
    }
    const slots = await this.readSlots(step);
    const plan = planSlots(this.name, profile, slots);
    const already = plan.candidates.find((c) => sameImage(c.slot.image, imageUrl) && c.slot.inserted !== false);
    if (already) {
      return {
        slot: already.slot.id,
        slotPath: already.slot.path,
        method: already.method,
        body: {},
        alreadyInserted: true,
        fellThrough: [],
      };
    }
    const fellThrough: InsertResult['fellThrough'] = [];
    let lastError: RedfishError | undefined;
    for (const { slot, method } of plan.candidates) {
      let request = planInsert(profile, slot, method, imageUrl);
      let sent = false;
      for (let adjustments = 0; !sent;) {
        try {
          await this.send(step, request);
          sent = true;
        } catch (err) {
          if (!(err instanceof RedfishError) || (err.status !== 400 && err.status !== 405)) throw err;
          lastError = err;
          const info = {
            code: undefined,
            message: err.details.bmcMessage,
            messageIds: [...(err.details.messageIds ?? [])],
            relatedProperties: [...(err.details.relatedProperties ?? [])],
          };
          const next =
            adjustments < MAX_PAYLOAD_ADJUSTMENTS ? adjustInsert(request, err.status, info, imageUrl) : undefined;
          if (!next) {
            fellThrough.push({
              slot: slot.id,
              why: `HTTP ${err.status}${err.details.bmcMessage ? `: ${err.details.bmcMessage}` : ''}`,
            });
            break;
          }
          request = next;
          adjustments++;
        }
      }
      if (!sent) continue;
      if (await this.showsImage(slot, imageUrl, step)) {
        return { slot: slot.id, slotPath: slot.path, method, body: request.body, alreadyInserted: false, fellThrough };
      }
      fellThrough.push({ slot: slot.id, why: 'the BMC accepted the insert but the slot never showed the image' });
    }
    throw new RedfishError(
      {
        bmc: this.name,
        step,
        failure: lastError && fellThrough.every((f) => f.why.startsWith('HTTP')) ? 'http' : 'unsupported',
        ...(lastError?.status !== undefined ? { status: lastError.status } : {}),
      },
      `no slot took the image: ${fellThrough.map((f) => `slot ${f.slot}: ${f.why}`).join('; ')}`,
    );
  }

  private async showsImage(slot: SlotInfo, imageUrl: string, step: string): Promise<boolean> {
    for (let read = 1; read <= INSERT_VERIFY_READS; read++) {
      const now = await this.wrap(step, () => readSlotAt(this.transport, slot.path, slot.location, step));
      if (sameImage(now.image, imageUrl) && now.inserted !== false) return true;
      if (read < INSERT_VERIFY_READS) await this.sleep(INSERT_VERIFY_INTERVAL_MS);
    }
    return false;
  }

  /** Next boot from virtual media, once, in `mode` (UEFI by default). */
  async setBootOnce(
    mode: BootMode = 'UEFI',
    step = 'boot-override',
  ): Promise<{ target: string; mode: BootMode | undefined }> {
    const profile = await this.profile(step);
    const system = await this.readSystem(step);
    const plan = planBootOverride(this.name, profile, system, mode);
    await this.send(step, {
      method: 'PATCH',
      path: plan.path,
      body: plan.body,
      ...(plan.ifMatch ? { ifMatch: plan.ifMatch } : {}),
    });
    return { target: plan.target, mode: plan.mode };
  }

  /** On when off, a forced restart when on (power-plan.ts); waits for Off between ForceOff and On. */
  async powerOnOrRestart(step = 'power'): Promise<PowerResult> {
    const system = await this.readSystem(step);
    const plan = planPower(this.name, system.powerState, system.resetTypes);
    await this.runResets(step, system, plan.actions);
    return plan;
  }

  /** Phase 2's power verbs: `on` (no-op when on), `off` (ForceOff; no-op when off), `reset` (as powerOnOrRestart). */
  async setPower(
    action: 'on' | 'off' | 'reset',
    step = `power-${action}`,
  ): Promise<PowerResult | { from: 'on' | 'off'; actions: []; why: string }> {
    if (action === 'reset') return this.powerOnOrRestart(step);
    const system = await this.readSystem(step);
    const plan = planPower(this.name, system.powerState, system.resetTypes);
    if (action === 'on') {
      if (plan.from === 'on') return { from: 'on', actions: [], why: `power is ${system.powerState} already` };
      await this.runResets(step, system, plan.actions);
      return plan;
    }
    if (plan.from === 'off') return { from: 'off', actions: [], why: `power is ${system.powerState} already` };
    await this.runResets(step, system, ['ForceOff']);
    return { from: 'on', actions: ['ForceOff'], why: `power is ${system.powerState}: ForceOff` };
  }

  private async runResets(step: string, system: SystemInfo, actions: readonly ResetType[]): Promise<void> {
    if (!system.resetTarget) {
      throw new RedfishError(
        { bmc: this.name, step, failure: 'unsupported' },
        'the System has no ComputerSystem.Reset action',
      );
    }
    for (const [index, resetType] of actions.entries()) {
      await this.send(step, { method: 'POST', path: system.resetTarget, body: { ResetType: resetType } });
      if (resetType === 'ForceOff' && index < actions.length - 1) await this.waitForOff(step, system.path);
    }
  }

  private async waitForOff(step: string, path: string): Promise<void> {
    for (let poll = 1; poll <= POWER_OFF_POLLS; poll++) {
      await this.sleep(POWER_OFF_POLL_INTERVAL_MS);
      const now = await this.wrap(step, () => readSystemAt(this.transport, path, step));
      if ((now.powerState ?? '').toLowerCase() === 'off') return;
    }
    throw new RedfishError(
      { bmc: this.name, step, failure: 'request-timeout' },
      `the System did not report Off within ${(POWER_OFF_POLLS * POWER_OFF_POLL_INTERVAL_MS) / 1000} s of ForceOff`,
    );
  }

  private async send(step: string, request: MediaRequest): Promise<void> {
    await this.wrap(step, () =>
      this.transport.request(
        step,
        request.method,
        request.path,
        request.body,
        request.ifMatch ? { 'If-Match': request.ifMatch } : {},
      ),
    );
  }

  /** Runs `fn`, attributing a RedfishError to `step`; anything else is a bug and passes through. */
  private async wrap<T>(step: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RedfishError) throw err.inStep(step);
      throw err;
    }
  }
}

/** The slot shows `url` (BMCs may re-encode it). */
function sameImage(shown: string | undefined, url: string): boolean {
  if (shown === undefined) return false;
  if (shown === url) return true;
  try {
    return decodeURI(shown) === decodeURI(url);
  } catch {
    return false;
  }
}
