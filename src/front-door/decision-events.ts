// The boot events of the front door's decisions, bounded: one event per host, answer and
// InfraEnv within DECISION_EVENT_WINDOW_MS (a host in a wait loop, or iPXE asking again after a
// failed boot, is one event, not one per request), the keys remembered in a bounded map (the
// oldest forgotten first: a flood of made-up MACs costs memory once, and at most
// MAX_EVENTS_PER_MINUTE events a minute all hosts together get written; the rest are counted).
// Names: `pxe_host_matched` (info: the host, the InfraEnv's answer, why) on the InfraEnv;
// `pxe_host_unmatched` (warning: the host and why) with no InfraEnv; `pxe_host_skipped` (info:
// boot-order-control sent an installed host to its disk) on the InfraEnv.
// Does NOT: decide (./host-match.ts) or block an answer (a failed write is logged at warn).
import type { Logger } from 'pino';
import type { FrontDoorCorePort } from './core-port.js';

export const FRONT_DOOR_EVENT_NAMES = ['pxe_host_matched', 'pxe_host_unmatched', 'pxe_host_skipped'] as const;
export type FrontDoorEventName = (typeof FRONT_DOOR_EVENT_NAMES)[number];

export const DECISION_EVENT_WINDOW_MS = 10 * 60_000;
export const MAX_DECISION_KEYS = 10_000;
export const MAX_EVENTS_PER_MINUTE = 600;

export interface DecisionEvent {
  name: FrontDoorEventName;
  /** Who (the host's label) and what was decided: the dedupe key with the InfraEnv. */
  host: string;
  infraEnvId: string | null;
  hostId: string | null;
  message: string;
}

export class DecisionEvents {
  private readonly seen = new Map<string, number>();
  private minute = { start: 0, written: 0 };
  /** Events not written because of the per-minute cap (shown in /health). */
  dropped = 0;
  written = 0;

  constructor(
    private readonly core: Pick<FrontDoorCorePort, 'recordEvent'>,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** Records the event unless the same one was recorded within the window; never throws or waits. */
  record(event: DecisionEvent): void {
    const at = this.now();
    const key = `${event.name}|${event.host}|${event.infraEnvId ?? ''}`;
    const last = this.seen.get(key);
    if (last !== undefined && at - last < DECISION_EVENT_WINDOW_MS) return;
    if (at - this.minute.start >= 60_000) this.minute = { start: at, written: 0 };
    if (this.minute.written >= MAX_EVENTS_PER_MINUTE) {
      this.dropped++;
      return;
    }
    this.minute.written++;
    this.seen.delete(key);
    this.seen.set(key, at);
    if (this.seen.size > MAX_DECISION_KEYS) this.seen.delete(this.seen.keys().next().value!);
    this.written++;
    this.core
      .recordEvent({
        infraEnvId: event.infraEnvId,
        hostId: event.hostId,
        name: event.name,
        severity: event.name === 'pxe_host_unmatched' ? 'warning' : 'info',
        message: event.message,
      })
      .catch((err: unknown) => this.logger.warn({ err, event: event.name }, 'front door boot event not recorded'));
  }
}
