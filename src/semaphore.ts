// A counting semaphore: at most `limit` holders at once, the rest waiting first come, first served,
// each until a slot frees or its AbortSignal fires (the caller's deadline or cancellation); with
// `maxWaiting`, a caller that finds that many already waiting is refused at once
// (SemaphoreFullError) instead of joining the line.
// Used for base images fetched and verified at once (IMAGE_DOWNLOAD_CONCURRENCY,
// src/images/loader/image-loader.ts), the PXE front door's decisions in flight
// (src/front-door/front-door.ts) and the Redfish calls in the call worker threads
// (src/bmc/redfish/call-pool.ts).
// Does NOT: know what it guards, or time anything itself (the signal does).

/** The line of waiters is full: the caller is refused rather than queued. */
export class SemaphoreFullError extends Error {}

export class Semaphore {
  private running = 0;
  private readonly waiters: Array<{ grant: () => void; reject: (err: unknown) => void }> = [];

  constructor(
    readonly limit: number,
    readonly maxWaiting = Infinity,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`semaphore limit must be a positive integer, not ${limit}`);
  }

  /**
   * Waits for a free slot; the returned function gives it back (idempotent). Rejects with the
   * signal's reason when it fires first, and with SemaphoreFullError when `maxWaiting` callers
   * are waiting already.
   */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw signal.reason;
    if (this.running < this.limit) {
      this.running++;
    } else {
      if (this.waiters.length >= this.maxWaiting)
        throw new SemaphoreFullError(`${this.limit} running and ${this.waiters.length} waiting`);
      await new Promise<void>((resolve, reject) => {
        const waiter = {
          grant: () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          },
          reject,
        };
        const onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(waiter);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next)
        next.grant(); // the slot passes straight to the next waiter
      else this.running--;
    };
  }

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.waiters.length;
  }
}
