// Progress rules for connections that are sending: one clock per watchdog samples each watched
// socket's real progress (src/http/transport/socket-progress.ts) and reports the ones that break their rule.
//
//   stall         bytes are waiting and the kernel took none of them for `stallMs`
//                 (HTTP_SEND_TIMEOUT; nginx's send_timeout is the same rule, per write)
//   min progress  bytes are waiting and fewer than `minBytes` left in `windowMs`
//                 (the artifact slots' rule: a 1-byte-per-second reader is cut like a stalled one)
//
// The clocks run only while bytes are waiting for the client: a response that is still being
// prepared, or whose source is slow, is never charged for it. A sample every `tickMs` bounds how
// late a rule fires: at most one tick after its time (plus event-loop delay).
//
// Does: watch, sample, report a violation once (the watch ends with it), say how long a watched
// stream has been behind (for preemption, src/http/face/request-cap.ts).
// Does NOT: close sockets, count metrics or decide which sockets to watch (its owners,
// src/http/transport/listener-limits.ts and src/http/face/request-cap.ts, do).
//
// Why not Node's socket timeout (`server.setTimeout`): when it fires it first checks whether the
// handle's write queue changed since the last write call; a client that stopped reading in the
// middle of a write (a partly accepted chunk: the usual case) changes it once, so the timeout
// re-arms and fires only after twice its value. Reads from the client also re-arm it.
import type { Socket } from 'node:net';
import { socketProgress } from './socket-progress.js';

export type ProgressViolation = 'send_timeout' | 'min_progress';

export interface ProgressRule {
  /** Bytes waiting and none accepted for this long: 'send_timeout'. */
  stallMs?: number;
  /** With `windowMs`: fewer than this many bytes accepted in `windowMs` of waiting: 'min_progress'. 0 = off. */
  minBytes?: number;
  windowMs?: number;
}

/** Shortest and longest sampling period: a tenth of the shortest rule, within these bounds. */
const MIN_TICK_MS = 50;
const MAX_TICK_MS = 1_000;

/** The sampling period for rules of `ruleMs`: a tenth of it, so a rule fires at most ~10 % late. */
export function tickFor(ruleMs: number): number {
  return Math.min(MAX_TICK_MS, Math.max(MIN_TICK_MS, Math.floor(ruleMs / 10)));
}

/** One watched socket. */
export class WatchedStream {
  private sent: number;
  private lastProgressAt: number;
  private windowAt: number;
  private windowSent: number;
  private waiting = false;
  private stopped = false;

  constructor(
    private readonly watchdog: SendWatchdog,
    readonly socket: Socket,
    private readonly rule: ProgressRule,
    private readonly onViolation: (violation: ProgressViolation) => void,
    now: number,
  ) {
    this.sent = socketProgress(socket).sent;
    this.lastProgressAt = now;
    this.windowAt = now;
    this.windowSent = this.sent;
  }

  /** Samples the socket; reports and ends the watch when a rule is broken. */
  check(now: number): ProgressViolation | undefined {
    if (this.stopped) return undefined;
    const violation = this.sample(now);
    if (violation !== undefined) {
      this.stop();
      this.onViolation(violation);
    }
    return violation;
  }

  /**
   * How long (ms, sampled now) this stream has been holding bytes for a client that does not take
   * them: since its last progress, or with a minimum-progress rule since it last met its quota.
   * 0 when nothing is waiting.
   */
  behindMs(now: number): number {
    if (this.check(now) !== undefined) return Number.POSITIVE_INFINITY;
    if (this.stopped || !this.waiting) return 0;
    return now - (this.hasQuota() ? this.windowAt : this.lastProgressAt);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.watchdog.forget(this);
  }

  private hasQuota(): boolean {
    return (this.rule.minBytes ?? 0) > 0 && this.rule.windowMs !== undefined;
  }

  private sample(now: number): ProgressViolation | undefined {
    const progress = socketProgress(this.socket);
    if (progress.sent !== this.sent) {
      this.sent = progress.sent;
      this.lastProgressAt = now;
    }
    if (!progress.waiting) {
      // Nothing waiting for the client: its clocks start again when something is.
      this.waiting = false;
      this.lastProgressAt = now;
      this.windowAt = now;
      this.windowSent = progress.sent;
      return undefined;
    }
    this.waiting = true;
    if (this.rule.stallMs !== undefined && now - this.lastProgressAt >= this.rule.stallMs) return 'send_timeout';
    if (this.hasQuota()) {
      if (progress.sent - this.windowSent >= this.rule.minBytes!) {
        this.windowAt = now;
        this.windowSent = progress.sent;
      } else if (now - this.windowAt >= this.rule.windowMs!) {
        return 'min_progress';
      }
    }
    return undefined;
  }
}

export class SendWatchdog {
  private readonly watched = new Set<WatchedStream>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly tickMs: number,
    /** Monotonic milliseconds. */
    readonly now: () => number = () => performance.now(),
  ) {
    if (!(tickMs > 0)) throw new RangeError(`watchdog tick must be positive, not ${tickMs}`);
  }

  /** Watches `socket` under `rule` until stop() or a violation (reported once to `onViolation`). */
  watch(socket: Socket, rule: ProgressRule, onViolation: (violation: ProgressViolation) => void): WatchedStream {
    const stream = new WatchedStream(this, socket, rule, onViolation, this.now());
    this.watched.add(stream);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref(); // never keeps the process alive
    }
    return stream;
  }

  /** Streams watched now. */
  get size(): number {
    return this.watched.size;
  }

  /** Called by WatchedStream.stop(). The clock stops at its next tick if nothing is left (a range storm's short requests do not start and stop it each time). */
  forget(stream: WatchedStream): void {
    this.watched.delete(stream);
  }

  private tick(): void {
    if (this.watched.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const now = this.now();
    // A violation ends its watch (deleting from the set while iterating it is safe).
    for (const stream of this.watched) stream.check(now);
  }
}
