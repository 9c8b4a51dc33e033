// The cap on artifact requests in flight (MAX_CONCURRENT_REQUESTS, as assisted-image-service).
//
// Does: admit an artifact request (ISOs, PXE initrd, boot artifacts, s390x addrsize) when fewer
// than `max` are in flight, in O(1), before any route work (Ignition lookup, file read); refuse
// the rest with an UnavailableError (503 + Retry-After + no-store via src/error-status.ts); release
// each admitted slot exactly once, whether the response finishes, fails or the client goes away;
// count refusals and expose the in-flight gauge.
// Does NOT: decide which paths are artifacts (src/http/app.ts mounts it), render the 503
// (src/http/error-mapping.ts), or cap connections (src/http/connection-guard.ts does).
import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { UnavailableError } from '../errors.js';
import type { Metrics } from '../metrics.js';

/** assisted-image-service's default: 1,000 simultaneous downloads exhausted its open files, 400 did not. */
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 400;
/** A refused client retries after this; streams of a boot artifact last seconds to minutes. */
export const CAP_RETRY_AFTER_SECONDS = 5;

export class RequestCap {
  private inFlight = 0;

  constructor(
    readonly max: number,
    private readonly metrics: Metrics,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`request cap must be an integer ≥ 1, not ${max}`);
    metrics.artifactRequestsLimit.set(max);
    metrics.artifactRequestsInFlight.set(0);
  }

  /** Requests admitted and not yet released. */
  get current(): number {
    return this.inFlight;
  }

  /**
   * Admits the request answered by `res` (its slot is released when the response ends or fails),
   * or returns the error to answer it with when `max` are already in flight.
   */
  admit(res: ServerResponse): UnavailableError | undefined {
    if (this.inFlight >= this.max) {
      this.metrics.artifactRequestsRefused.inc();
      return new UnavailableError(
        `too many artifact requests in flight (MAX_CONCURRENT_REQUESTS=${this.max}): retry later`,
        CAP_RETRY_AFTER_SECONDS,
        { max: this.max },
      );
    }
    this.inFlight++;
    this.metrics.artifactRequestsInFlight.set(this.inFlight);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.metrics.artifactRequestsInFlight.set(this.inFlight);
    };
    // 'close' follows every response (finished, failed, or its client gone); 'finish' comes first
    // when the body was handed over whole. Either releases; the guard makes it exactly once.
    res.once('finish', release);
    res.once('close', release);
    return undefined;
  }

  /** Express middleware: admits or refuses; never does route work itself. */
  readonly middleware: RequestHandler = (_req: Request, res: Response, next: NextFunction): void => {
    next(this.admit(res));
  };
}
