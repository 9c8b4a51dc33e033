// The artifact slots: MAX_CONCURRENT_REQUESTS (as assisted-image-service) shared fairly.
//
// Does: admit an artifact request (ISOs, PXE initrd, boot artifacts, s390x addrsize) in O(1)
// when neither the global cap nor its client address's share (MAX_CONCURRENT_REQUESTS_PER_ADDRESS;
// IPv6 counted per /64, src/http/transport/client-address-key.ts) is reached, before any route work
// (Ignition lookup, file read). At a limit it first preempts: the stream of that address (at its
// share) or of anyone (at the global cap) that has been behind the longest, if it has been behind
// for PREEMPT_AFTER_MS (bytes waiting for a client that takes none, or too few for the minimum
// progress rule), is closed and its slot given to the newcomer; otherwise it refuses with an
// UnavailableError (503 + Retry-After + no-store via src/error-status.ts). Every admitted stream is
// held to the minimum-progress rule (ARTIFACT_MIN_PROGRESS_BYTES within ARTIFACT_MIN_PROGRESS_TIME
// while bytes wait for the client; src/http/transport/send-watchdog.ts) and closed when it breaks it. Each
// slot is released exactly once, whether the response finishes, fails, is cut or the client goes
// away. Counts refusals and cuts, and reports saturation for /health and /metrics.
// Does NOT: decide which paths are artifacts (src/http/face/app.ts mounts it), render the 503
// (src/http/representation/error-response.ts), cap connections (src/http/transport/connection-guard.ts) or apply the
// listener's send timeout (src/http/transport/listener-limits.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { UnavailableError } from '../../errors.js';
import type { Metrics } from '../../metrics.js';
import { clientAddressKey } from '../transport/client-address-key.js';
import { SendWatchdog, type WatchedStream, tickFor } from '../transport/send-watchdog.js';

/** assisted-image-service's default: 1,000 simultaneous downloads exhausted its open files, 400 did not. */
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 400;
/**
 * A BMC's or host's own streams stay far below it (a few parallel ranges, PXE fetches one file at
 * a time), as HTTP_MAX_IDLE_PER_ADDRESS's 32; so one address takes at most 8 % of the default cap.
 */
export const DEFAULT_MAX_CONCURRENT_REQUESTS_PER_ADDRESS = 32;
/** One loopback TCP window, dozens of Ethernet segments: any client that reads at all moves it. */
export const DEFAULT_MIN_PROGRESS_BYTES = 64 * 1024;
/** Half nginx's send_timeout: a stream that moves under 64 KiB in 30 s (≈ 2 KiB/s) frees its slot. */
export const DEFAULT_MIN_PROGRESS_WINDOW_MS = 30_000;
/**
 * A reading client's TCP window reopens within a few round trips (well under a second even across
 * continents); a stream that has been behind for 5 s is not being read and gives way to a newcomer.
 */
export const PREEMPT_AFTER_MS = 5_000;
/** A refusal at the global cap keeps the slots reported as saturated for this long. */
export const SATURATION_MEMORY_MS = 60_000;
/** A refused client retries after this; streams of a boot artifact last seconds to minutes. */
export const CAP_RETRY_AFTER_SECONDS = 5;

export interface RequestCapSettings {
  /** MAX_CONCURRENT_REQUESTS */
  max: number;
  /** MAX_CONCURRENT_REQUESTS_PER_ADDRESS (at most `max` in effect). */
  perAddress: number;
  /** ARTIFACT_MIN_PROGRESS_BYTES; 0 = no minimum-progress rule. */
  minProgressBytes: number;
  /** ARTIFACT_MIN_PROGRESS_TIME */
  minProgressWindowMs: number;
}

export const DEFAULT_REQUEST_CAP: RequestCapSettings = {
  max: DEFAULT_MAX_CONCURRENT_REQUESTS,
  perAddress: DEFAULT_MAX_CONCURRENT_REQUESTS_PER_ADDRESS,
  minProgressBytes: DEFAULT_MIN_PROGRESS_BYTES,
  minProgressWindowMs: DEFAULT_MIN_PROGRESS_WINDOW_MS,
};

/** The slots as /health shows them (no client address is shown). */
export interface ArtifactSlotsStatus {
  in_flight: number;
  limit: number;
  per_address_limit: number;
  /** Streams of the address holding the most right now. */
  busiest_address_in_flight: number;
  /** Every slot taken, or a refusal at the global cap within the last minute. */
  saturated: boolean;
  /** Requests refused since start, by reason. */
  refused: { global_cap: number; address_share: number };
  /** Streams closed since start to free their slot, by reason. */
  cut: { min_progress: number; preempted: number };
}

type RefusalReason = 'global_cap' | 'address_share';
type CutReason = 'min_progress' | 'preempted';

interface Slot {
  key: string;
  socket: Socket;
  watch: WatchedStream;
  release(): void;
}

export class RequestCap {
  readonly max: number;
  readonly perAddress: number;
  private readonly slots = new Set<Slot>();
  private readonly byAddress = new Map<string, Set<Slot>>();
  private readonly watchdog: SendWatchdog;
  private readonly refusals = { global_cap: 0, address_share: 0 };
  private readonly cuts = { min_progress: 0, preempted: 0 };
  private lastGlobalRefusalAt = Number.NEGATIVE_INFINITY;
  /** Each connection's share key, worked out once (a keep-alive connection asks for every request). */
  private readonly keyOfSocket = new WeakMap<Socket, string>();

  constructor(
    private readonly settings: RequestCapSettings,
    private readonly metrics: Metrics,
  ) {
    const { max, perAddress, minProgressBytes, minProgressWindowMs } = settings;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`request cap must be an integer ≥ 1, not ${max}`);
    if (!Number.isInteger(perAddress) || perAddress < 1)
      throw new RangeError(`per-address request cap must be an integer ≥ 1, not ${perAddress}`);
    if (!Number.isInteger(minProgressBytes) || minProgressBytes < 0 || !(minProgressWindowMs > 0))
      throw new RangeError(
        `minimum progress must be bytes ≥ 0 in a positive time, not ${minProgressBytes} in ${minProgressWindowMs} ms`,
      );
    this.max = max;
    this.perAddress = Math.min(perAddress, max);
    // Sampling fine enough for both the progress window and the preemption grace.
    this.watchdog = new SendWatchdog(tickFor(Math.min(minProgressWindowMs, PREEMPT_AFTER_MS)));
    metrics.artifactRequestsLimit.set(max);
    metrics.artifactRequestsPerAddressLimit.set(this.perAddress);
    metrics.artifactRequestsInFlight.set(0);
    metrics.artifactSlotsSaturation = () => this.saturated();
  }

  /** Requests admitted and not yet released. */
  get current(): number {
    return this.slots.size;
  }

  /**
   * Admits the request `req` answered by `res` (its slot is released when the response ends, fails
   * or is cut), preempting a stream that is behind if a limit is reached, or returns the error to
   * answer it with.
   */
  admit(req: IncomingMessage, res: ServerResponse): UnavailableError | undefined {
    const socket = req.socket;
    let key = this.keyOfSocket.get(socket);
    if (key === undefined) {
      key = clientAddressKey(socket.remoteAddress);
      this.keyOfSocket.set(socket, key);
    }
    const own = this.byAddress.get(key);
    // A share equal to the cap is no share: reaching it means the cap is reached (reported as such).
    if (this.perAddress < this.max && own !== undefined && own.size >= this.perAddress && !this.preempt(own)) {
      return this.refuse(
        'address_share',
        `too many artifact requests in flight from this client address (MAX_CONCURRENT_REQUESTS_PER_ADDRESS=${this.perAddress}): retry later`,
      );
    }
    if (this.slots.size >= this.max && !this.preempt(this.slots)) {
      this.lastGlobalRefusalAt = this.watchdog.now();
      return this.refuse(
        'global_cap',
        `too many artifact requests in flight (MAX_CONCURRENT_REQUESTS=${this.max}): retry later`,
      );
    }
    this.hold(key, socket, res);
    return undefined;
  }

  /** Express middleware: admits or refuses; never does route work itself. */
  readonly middleware: RequestHandler = (req: Request, res: Response, next: NextFunction): void => {
    next(this.admit(req, res));
  };

  /** The slots for /health. */
  status(): ArtifactSlotsStatus {
    let busiest = 0;
    for (const held of this.byAddress.values()) busiest = Math.max(busiest, held.size);
    return {
      in_flight: this.slots.size,
      limit: this.max,
      per_address_limit: this.perAddress,
      busiest_address_in_flight: busiest,
      saturated: this.saturated(),
      refused: { ...this.refusals },
      cut: { ...this.cuts },
    };
  }

  private saturated(): boolean {
    return this.slots.size >= this.max || this.watchdog.now() - this.lastGlobalRefusalAt < SATURATION_MEMORY_MS;
  }

  private refuse(reason: RefusalReason, message: string): UnavailableError {
    this.refusals[reason]++;
    this.metrics.artifactRequestsRefused.inc({ reason });
    return new UnavailableError(message, CAP_RETRY_AFTER_SECONDS, {
      max: this.max,
      perAddress: this.perAddress,
      reason,
    });
  }

  private hold(key: string, socket: Socket, res: ServerResponse): void {
    let ofAddress = this.byAddress.get(key);
    if (ofAddress === undefined) this.byAddress.set(key, (ofAddress = new Set()));
    const addressSlots = ofAddress;
    let released = false;
    const slot: Slot = {
      key,
      socket,
      watch: this.watchdog.watch(
        socket,
        { minBytes: this.settings.minProgressBytes, windowMs: this.settings.minProgressWindowMs },
        () => this.cut(slot, 'min_progress'),
      ),
      release: () => {
        if (released) return;
        released = true;
        slot.watch.stop();
        this.slots.delete(slot);
        addressSlots.delete(slot);
        if (addressSlots.size === 0 && this.byAddress.get(key) === addressSlots) this.byAddress.delete(key);
        this.metrics.artifactRequestsInFlight.set(this.slots.size);
      },
    };
    this.slots.add(slot);
    addressSlots.add(slot);
    this.metrics.artifactRequestsInFlight.set(this.slots.size);
    // 'close' follows every response (finished, failed, or its client gone); 'finish' comes first
    // when the body was handed over whole. Either releases; the guard makes it exactly once (so
    // plain listeners do: a response emits each event once, and is dropped after it).
    res.on('finish', slot.release);
    res.on('close', slot.release);
  }

  /** Frees a slot among `candidates` for a newcomer; false when none has been behind long enough. */
  private preempt(candidates: Set<Slot>): boolean {
    const now = this.watchdog.now();
    const before = this.slots.size;
    let victim: Slot | undefined;
    let longest = -1;
    for (const slot of [...candidates]) {
      const behind = slot.watch.behindMs(now); // may cut the slot for its minimum progress
      if (this.slots.size < before) return true;
      if (behind >= PREEMPT_AFTER_MS && behind > longest) {
        longest = behind;
        victim = slot;
      }
    }
    if (victim === undefined) return false;
    this.cut(victim, 'preempted');
    return true;
  }

  /** Closes a stream to free its slot: released now, the connection destroyed. */
  private cut(slot: Slot, reason: CutReason): void {
    slot.release();
    this.cuts[reason]++;
    this.metrics.artifactRequestsCut.inc({ reason });
    slot.socket.destroy();
  }
}
