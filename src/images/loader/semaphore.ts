// A counting semaphore bounding how many base images are fetched and verified at once
// (IMAGE_DOWNLOAD_CONCURRENCY). Waiters are served first come, first served.
// It knows nothing about images.

export class Semaphore {
  private running = 0;
  private readonly waiters: Array<{ grant: () => void; reject: (err: unknown) => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`semaphore limit must be a positive integer, not ${limit}`);
  }

  /** Waits for a free slot; the returned function gives it back (idempotent). */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw signal.reason;
    if (this.running < this.limit) {
      this.running++;
    } else {
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
}
