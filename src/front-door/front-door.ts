// The PXE front door: one answer per booting host, whoever asks. A host is matched to an InfraEnv
// (./host-match.ts, over the assignments, the BMC wing's lookup and the core's), the decision is a
// boot event (./decision-events.ts), and the answer is rendered for the asker:
//   iPXE      the InfraEnv's own iPXE script (the core's renderer: boot-order-control sends an
//             installed host to its disk), a skip script, or a wait script that asks again later;
//   GRUB      a grub.cfg with the InfraEnv's kernel, pxe-initrd and arguments over HTTP, or one
//             that exits to the next device, or waits and reboots (./grub-config.ts);
//   pixiecore its API's JSON, or nothing (pixiecore then leaves the machine alone);
//   PXE wing  the port its ProxyDHCP and TFTP ask (ipxeScriptUrl, bootChoice, grubConfig: the shape
//             of src/pxe/front-door-port.ts, adapted in src/assembly/front-door-wing.ts).
// While it is on, every per-host answer is counted by kind and outcome, and every match timed
// (./front-door-metrics.ts).
// With PXE_FRONT_DOOR=off it answers nothing (FrontDoorOffError, 404) and the port says so too.
// Does NOT: serve HTTP (./front-door-routes.ts) or know which wing implements its ports.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { NotFoundError, UnavailableError } from '../errors.js';
import { Semaphore } from '../semaphore.js';
import { URL_SHAPE } from '../url-grammar.js';
import type { AssignmentStore } from './assignments/assignment-store.js';
import type { BmcMachineLookup, FrontDoorCorePort } from './core-port.js';
import { DecisionEvents, type FrontDoorEventName } from './decision-events.js';
import {
  type AnswerKind,
  type AnswerOutcome,
  FrontDoorMetrics,
  type HttpAnswerKind,
  matchSource,
} from './front-door-metrics.js';
import type { FrontDoorSettings } from './front-door-settings.js';
import { bootIpxeScript, skipScript, waitScript } from './front-door-scripts.js';
import { grubBootConfig } from '../boot-scripts/grub-config.js';
import { grubSkipConfig, grubWaitConfig } from './grub-config.js';
import { type HostIdentity, hostLabel } from './host-identity.js';
import { type HostMatch, type NoMatch, matchHost } from './host-match.js';
import { type PixiecoreBoot, pixiecoreAnswer } from './pixiecore-answer.js';

/** The front door is off (PXE_FRONT_DOOR): 404, saying so. */
export class FrontDoorOffError extends NotFoundError {}

/** MAX_DECISIONS_IN_FLIGHT decisions are running and no turn came (a full line, or DECISION_WAIT_MS passed): 503 with Retry-After. */
export class FrontDoorBusyError extends UnavailableError {}

export type Asker = 'ipxe' | 'grub' | 'pixiecore' | 'pxe';

type FrontDoorScript = NonNullable<Awaited<ReturnType<FrontDoorCorePort['ipxeScript']>>>;

export interface FrontDoorOptions {
  settings: FrontDoorSettings;
  core: FrontDoorCorePort;
  /** The BMC wing's lookup, when a wing offers it (looked up at each decision). */
  bmc: () => BmcMachineLookup | undefined;
  assignments: Pick<AssignmentStore, 'lookup'>;
  /** The plain-HTTP base iPXE and GRUB reach the service at (PXE_SERVICE base). */
  pxeServiceBaseUrl: string;
  logger: Logger;
  now: () => Date;
  /** Where its Prometheus instruments register (the service's registry). */
  registry: Registry;
}

export interface FrontDoorStatus {
  state: 'on' | 'off';
  boot_url: string;
  default_infra_env: string | null;
  ipxe_script_type: string;
  decisions: Record<Asker, number>;
  unmatched: number;
  /** Requests answered 503 at MAX_DECISIONS_IN_FLIGHT. */
  busy: number;
  events_written: number;
  events_dropped: number;
}

/** What the PXE wing's port is answered with (src/pxe/front-door-port.ts's shape). */
export interface PxePortAnswers {
  ipxeScriptUrl(client: { mac: string }): string;
  bootChoice(client: {
    mac: string;
    uuid: string | undefined;
  }): Promise<{ secureBoot: boolean; httpBootUrl: string | undefined }>;
  grubConfig(request: { mac: string }): Promise<string | undefined>;
}

/**
 * Decisions in flight at once (each is a handful of indexed queries, one of them a scan of the
 * hosts' inventories for a MAC). Past it a decision waits its turn (src/semaphore.ts): up to
 * MAX_DECISIONS_WAITING of them for up to DECISION_WAIT_MS, so a rack booting at once is served
 * in one pass; a flood of made-up MACs past that is answered 503 with Retry-After, which
 * boot.ipxe's retry waits out.
 */
export const MAX_DECISIONS_IN_FLIGHT = 64;
export const MAX_DECISIONS_WAITING = 1024;
export const DECISION_WAIT_MS = 5_000;
const BUSY_RETRY_SECONDS = 10;

/** What a host is told when its InfraEnv was deleted between the match and the answer. */
function gone(match: HostMatch): string {
  return `InfraEnv ${match.infraEnvId} is gone`;
}

export class FrontDoor {
  private readonly events: DecisionEvents;
  private readonly decisions: Record<Asker, number> = { ipxe: 0, grub: 0, pixiecore: 0, pxe: 0 };
  private unmatched = 0;
  private readonly inFlight = new Semaphore(MAX_DECISIONS_IN_FLIGHT, MAX_DECISIONS_WAITING);
  /** Decisions refused: the line was full or their wait ran out. */
  private busy = 0;
  private readonly base: string;
  private readonly metrics: FrontDoorMetrics | undefined;

  constructor(private readonly o: FrontDoorOptions) {
    this.events = new DecisionEvents(o.core, o.logger, () => o.now().getTime());
    this.base = o.pxeServiceBaseUrl.replace(/\/+$/, '');
    // registered only while the front door is on, as /health shows pxe_front_door only then
    this.metrics = o.settings.pxeFrontDoor ? new FrontDoorMetrics(o.registry) : undefined;
  }

  get on(): boolean {
    return this.o.settings.pxeFrontDoor;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  private assertOn(): void {
    if (!this.on) throw new FrontDoorOffError('the PXE front door is off (PXE_FRONT_DOOR=on turns it on)');
  }

  /** Matches the host and records the decision's event; every answer goes through here. */
  async decide(host: HostIdentity, asker: Asker): Promise<HostMatch | NoMatch> {
    let release: () => void;
    try {
      // refused: the line was full (SemaphoreFullError) or the wait ran out (the signal's TimeoutError)
      release = await this.inFlight.acquire(AbortSignal.timeout(DECISION_WAIT_MS));
    } catch {
      this.busy++;
      throw new FrontDoorBusyError(
        `the PXE front door is deciding for ${MAX_DECISIONS_IN_FLIGHT} hosts at once and ${this.inFlight.waiting} more are waiting; ask again`,
        BUSY_RETRY_SECONDS,
      );
    }
    try {
      return await this.match(host, asker);
    } finally {
      release();
    }
  }

  /** matchHost over this service's lookups, timed. */
  private async timedMatch(host: HostIdentity): Promise<HostMatch | NoMatch> {
    const { core, assignments, settings } = this.o;
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    try {
      const match = await matchHost(
        host,
        {
          assignment: (mac, uuids) => assignments.lookup(mac, uuids),
          bmc: (mac, uuids) => this.o.bmc()?.(mac, uuids) ?? Promise.resolve(undefined),
          staticNetwork: (mac) => core.staticNetworkInfraEnvs(mac),
          registrations: (mac, uuids) => core.registrations(mac, uuids),
          infraEnvExists: async (id) => (await core.infraEnv(id)) !== undefined,
        },
        settings.pxeDefaultInfraEnv,
      );
      this.metrics?.matched(match.matched ? matchSource(match.via) : 'none', seconds());
      return match;
    } catch (err) {
      this.metrics?.matched('error', seconds());
      throw err;
    }
  }

  private async match(host: HostIdentity, asker: Asker): Promise<HostMatch | NoMatch> {
    const { core } = this.o;
    const match = await this.timedMatch(host);
    this.decisions[asker]++;
    const label = hostLabel(host);
    if (match.matched) {
      const infraEnv = await core.infraEnv(match.infraEnvId);
      const name = infraEnv ? `${infraEnv.name} (${infraEnv.id})` : match.infraEnvId;
      this.event(
        'pxe_host_matched',
        label,
        match.infraEnvId,
        match.hostId ?? null,
        `PXE host ${label} boots InfraEnv ${name} (${asker}): ${match.why}`,
      );
    } else {
      this.unmatched++;
      this.event(
        'pxe_host_unmatched',
        label,
        null,
        null,
        `PXE host ${label} (${asker}) was not matched: ${match.reason}`,
      );
      this.o.logger.info({ host: label, asker }, `PXE front door: ${match.reason}`);
    }
    return match;
  }

  private event(
    name: FrontDoorEventName,
    host: string,
    infraEnvId: string | null,
    hostId: string | null,
    message: string,
  ): void {
    this.events.record({ name, host, infraEnvId, hostId, message });
  }

  /** GET /boot.ipxe: the same script for every host. */
  bootScript(): string {
    this.assertOn();
    return bootIpxeScript(this.url(URL_SHAPE.frontDoorHost.path));
  }

  /**
   * Runs one per-host answer and counts it by kind and outcome (a failure as busy or error,
   * rethrown for the route to answer).
   */
  private async counted<T>(kind: AnswerKind, answer: () => Promise<readonly [T, AnswerOutcome]>): Promise<T> {
    try {
      const [value, outcome] = await answer();
      this.metrics?.answered(kind, outcome);
      return value;
    } catch (err) {
      this.metrics?.answered(kind, err instanceof FrontDoorBusyError ? 'busy' : 'error');
      throw err;
    }
  }

  /** A host's request refused before it reached an answer (400: a malformed MAC, UUID or request). */
  countInvalid(kind: HttpAnswerKind): void {
    this.metrics?.answered(kind, 'invalid');
  }

  /** The per-host iPXE answer. */
  async hostScript(host: HostIdentity): Promise<string> {
    this.assertOn();
    return this.counted<string>('ipxe', async () => {
      const match = await this.decide(host, 'ipxe');
      if (!match.matched) return [waitScript(match.reason, this.retrySeconds, this.askAgainUrl(host)), 'unmatched'];
      const answer = await this.infraEnvAnswer(host, match);
      if (answer === undefined) return [waitScript(gone(match), this.retrySeconds, this.askAgainUrl(host)), 'gone'];
      return answer.kind === 'skip' ? [skipScript(answer.reason), 'skipped'] : [answer.script, matchSource(match.via)];
    });
  }

  private get retrySeconds(): number {
    return Math.round(this.o.settings.pxeUnknownHostRetryMs / 1000);
  }

  /**
   * The InfraEnv's own iPXE answer for the host (undefined: the InfraEnv is gone). Under
   * boot-order-control the core is asked by the host's MAC, so an installed host is a skip (an
   * event); discovery-image-always never skips.
   */
  private async infraEnvAnswer(host: HostIdentity, match: HostMatch): Promise<FrontDoorScript | undefined> {
    const type = this.o.settings.pxeIpxeScriptType;
    const mac = type === 'boot-order-control' ? host.mac : undefined;
    const answer = await this.o.core.ipxeScript(match.infraEnvId, type, mac);
    if (answer?.kind === 'skip') {
      const label = hostLabel(host);
      this.event(
        'pxe_host_skipped',
        label,
        match.infraEnvId,
        match.hostId ?? null,
        `PXE host ${label}: ${answer.reason}`,
      );
    }
    return answer;
  }

  /** This host's per-host URL with its identity filled in (what a wait script asks again). */
  private askAgainUrl(host: HostIdentity): string {
    const q = new URLSearchParams();
    if (host.mac) q.set('mac', host.mac.replaceAll(':', '-'));
    if (host.uuid) q.set('uuid', host.uuid);
    if (host.serial) q.set('serial', host.serial);
    if (host.buildarch) q.set('buildarch', host.buildarch);
    if (host.platform) q.set('platform', host.platform);
    // iPXE would expand `${` and split on spaces: URLSearchParams encodes both.
    return `${this.url(URL_SHAPE.frontDoorHost.path)}?${q.toString()}`;
  }

  /** A host's grub.cfg (asked by HTTP or by the PXE wing's TFTP). */
  async grubConfig(host: HostIdentity, asker: 'grub' | 'pxe' = 'grub'): Promise<string> {
    this.assertOn();
    return this.counted<string>(asker === 'pxe' ? 'tftp_grub' : 'grub', async () => {
      const match = await this.decide(host, asker);
      if (!match.matched) return [grubWaitConfig(match.reason, this.retrySeconds), 'unmatched'];
      const answer = await this.infraEnvAnswer(host, match);
      if (answer?.kind === 'skip') return [grubSkipConfig(answer.reason), 'skipped'];
      const files = await this.o.core.bootFiles(match.infraEnvId);
      if (!answer || !files) return [grubWaitConfig(gone(match), this.retrySeconds), 'gone'];
      return [grubBootConfig(files.boot), matchSource(match.via)];
    });
  }

  /** pixiecore's API: the boot of this MAC, or undefined (pixiecore ignores the machine). */
  async pixiecore(host: HostIdentity): Promise<PixiecoreBoot | undefined> {
    this.assertOn();
    return this.counted<PixiecoreBoot | undefined>('pixiecore', async () => {
      const match = await this.decide(host, 'pixiecore');
      if (!match.matched) return [undefined, 'unmatched'];
      const answer = await this.infraEnvAnswer(host, match);
      if (answer?.kind === 'skip') return [undefined, 'skipped'];
      const files = answer && (await this.o.core.bootFiles(match.infraEnvId));
      if (!files) return [undefined, 'gone'];
      return [pixiecoreAnswer(files), matchSource(match.via)];
    });
  }

  /** What the PXE wing's port answers (off: iPXE is still sent to boot.ipxe, which says the door is off). */
  pxePort(): PxePortAnswers {
    return {
      ipxeScriptUrl: () => this.url(URL_SHAPE.frontDoorBoot.path),
      bootChoice: async (client) => {
        if (!this.on) return { secureBoot: false, httpBootUrl: undefined };
        return this.counted<{ secureBoot: boolean; httpBootUrl: undefined }>('dhcp', async () => {
          const match = await this.decide(
            { mac: client.mac, uuid: client.uuid, serial: undefined, buildarch: undefined, platform: undefined },
            'pxe',
          );
          const secureBoot = match.matched && match.secureBoot;
          return [{ secureBoot, httpBootUrl: undefined }, match.matched ? matchSource(match.via) : 'unmatched'];
        });
      },
      grubConfig: async (request) => {
        if (!this.on) return undefined;
        return this.grubConfig(
          { mac: request.mac, uuid: undefined, serial: undefined, buildarch: undefined, platform: undefined },
          'pxe',
        );
      },
    };
  }

  status(): FrontDoorStatus {
    const s = this.o.settings;
    return {
      state: this.on ? 'on' : 'off',
      boot_url: this.url(URL_SHAPE.frontDoorBoot.path),
      default_infra_env: s.pxeDefaultInfraEnv ?? null,
      ipxe_script_type: s.pxeIpxeScriptType,
      decisions: { ...this.decisions },
      unmatched: this.unmatched,
      busy: this.busy,
      events_written: this.events.written,
      events_dropped: this.events.dropped,
    };
  }
}
