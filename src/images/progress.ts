// Progress of one transfer (a download, a hash pass): bytes so far, total when known, the
// rate over the last few seconds and the ETA that follows. Also the human formatting of
// byte counts, rates and durations shared by logs and the CLI progress bars.
// It does no I/O and draws nothing.

export interface ProgressSnapshot {
  bytes: number;
  total: number | undefined;
  /** 0..100 with one decimal; undefined when the total is unknown. */
  percent: number | undefined;
  bytesPerSecond: number;
  /** Seconds to completion at the current rate; undefined when unknown. */
  etaSeconds: number | undefined;
}

/** How far back the rate looks. */
const RATE_WINDOW_MS = 5_000;

export class TransferProgress {
  private done: number;
  private readonly samples: Array<{ at: number; bytes: number }> = [];

  /** `already`: bytes present before this transfer started (a resumed download). */
  constructor(
    private total: number | undefined,
    already = 0,
    private readonly now: () => number = Date.now,
  ) {
    this.done = already;
    this.samples.push({ at: now(), bytes: already });
  }

  /** Restarts the count (the server ignored a Range request, or a new attempt resumed elsewhere). */
  reset(total: number | undefined, already: number): void {
    this.total = total;
    this.done = already;
    this.samples.length = 0;
    this.samples.push({ at: this.now(), bytes: already });
  }

  add(bytes: number): void {
    this.done += bytes;
    const at = this.now();
    const last = this.samples[this.samples.length - 1];
    if (last && at - last.at < 100)
      last.bytes = this.done; // one sample per 100 ms is plenty
    else this.samples.push({ at, bytes: this.done });
    while (this.samples.length > 2 && at - this.samples[1]!.at > RATE_WINDOW_MS) this.samples.shift();
  }

  get bytes(): number {
    return this.done;
  }

  snapshot(): ProgressSnapshot {
    const first = this.samples[0]!;
    const elapsedMs = this.now() - first.at;
    const bytesPerSecond = elapsedMs > 0 ? Math.round(((this.done - first.bytes) * 1000) / elapsedMs) : 0;
    const total = this.total;
    const percent = total ? Math.min(100, Math.floor((this.done / total) * 1000) / 10) : undefined;
    const etaSeconds =
      total !== undefined && bytesPerSecond > 0
        ? Math.ceil(Math.max(0, total - this.done) / bytesPerSecond)
        : undefined;
    return { bytes: this.done, total, percent, bytesPerSecond, etaSeconds };
  }
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 → "1.5 KiB". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

/** 3725 → "1h02m", 75 → "1m15s", 9 → "9s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
