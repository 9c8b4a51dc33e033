// How many front-door decisions run at once, and what happens to the ones past that: they wait
// their turn, first come first served, for a bounded time in a bounded line.
//
// A rack powered on at once sends its hosts' iPXE requests within a second or two; each decision
// is a handful of indexed queries, so a short wait serves them all where a refusal would send
// each refused host into boot.ipxe's 10 s retry. A flood of made-up MACs still finds the line full
// (or its wait over) and is refused, so memory and the database's pool stay bounded.
// Does: admit, queue, time out and release. Does NOT: decide anything, or answer (front-door.ts
// turns a refusal into its 503).
export interface DecisionGateLimits {
  /** Decisions running at once. */
  running: number;
  /** Decisions waiting for a turn; the next one is refused at once. */
  waiting: number;
  /** How long a decision waits for its turn before it is refused. */
  waitMs: number;
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

export class DecisionGate {
  private running = 0;
  private readonly line: Waiter[] = [];

  constructor(private readonly limits: DecisionGateLimits) {}

  /** Resolves true once the caller may decide (it must call release() after), false when refused. */
  acquire(): Promise<boolean> {
    if (this.running < this.limits.running && this.line.length === 0) {
      this.running++;
      return Promise.resolve(true);
    }
    if (this.line.length >= this.limits.waiting) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          this.running++;
          resolve(true);
        },
        timer: setTimeout(() => {
          const at = this.line.indexOf(waiter);
          if (at >= 0) this.line.splice(at, 1);
          resolve(false);
        }, this.limits.waitMs),
      };
      waiter.timer.unref();
      this.line.push(waiter);
    });
  }

  release(): void {
    this.running--;
    this.line.shift()?.admit();
  }

  get waiting(): number {
    return this.line.length;
  }
}
