// Log lines a network can make a server write at will (an unknown architecture per DISCOVER, a
// refused TFTP path per request), at most one per key per interval: the first is written, the
// rest are counted and the count goes out with the next line written for that key. The set of
// keys is bounded; when full it starts over (a flood of distinct keys costs one line per key per
// interval at worst, within the bound).
// Does NOT: format or redact (callers pass structured fields; PXE fields carry no secrets).

/** Same shape as pino's methods, so the service's logger fits without this wing importing it. */
export interface PxeLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** One line per key per minute: a firmware retransmits DISCOVER every few seconds. */
export const LOG_INTERVAL_MS = 60_000;
const MAX_KEYS = 1024;

export class RateLimitedLog {
  private readonly seen = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly log: PxeLog,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = LOG_INTERVAL_MS,
  ) {}

  warn(key: string, fields: object, message: string): void {
    this.write('warn', key, fields, message);
  }

  info(key: string, fields: object, message: string): void {
    this.write('info', key, fields, message);
  }

  private write(level: 'info' | 'warn', key: string, fields: object, message: string): void {
    const now = this.now();
    const entry = this.seen.get(key);
    if (entry && now - entry.at < this.intervalMs) {
      entry.suppressed++;
      return;
    }
    if (!entry && this.seen.size >= MAX_KEYS) this.seen.clear();
    const suppressed = entry?.suppressed ?? 0;
    this.seen.set(key, { at: now, suppressed: 0 });
    this.log[level](suppressed > 0 ? { ...fields, suppressedSinceLast: suppressed } : fields, message);
  }
}
