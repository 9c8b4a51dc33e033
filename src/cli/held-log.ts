// The JSON log of `bootsmith serve` on a terminal, held back while the service starts so the
// human start line comes first: lines are kept in memory until `release()` (after the start
// line is printed), then written in order and every later line goes straight through.
//
// Bounded: at most HOLD_MAX_LINES lines or HOLD_MAX_MS of waiting, whichever comes first, then
// everything held is written and nothing more is held (a slow or stuck start still shows its log).
// Does NOT: format or filter lines (src/logger.ts does), or decide whether a terminal is attached.
import type { DestinationStream } from 'pino';

/** A start logs a few dozen lines; far more means something loops, so show it. */
export const HOLD_MAX_LINES = 2_000;
/** A start on an idle machine takes ~2 s, the first one with initdb ~5 s; beyond this, show the log. */
export const HOLD_MAX_MS = 20_000;

export class HeldLog implements DestinationStream {
  private held: string[] | undefined = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly out: { write(line: string): unknown }) {
    this.timer = setTimeout(() => this.release(), HOLD_MAX_MS);
    this.timer.unref();
  }

  write(line: string): void {
    if (this.held === undefined) {
      this.out.write(line);
      return;
    }
    this.held.push(line);
    if (this.held.length >= HOLD_MAX_LINES) this.release();
  }

  /** Writes what was held and stops holding. Idempotent. */
  release(): void {
    clearTimeout(this.timer);
    const held = this.held;
    this.held = undefined;
    for (const line of held ?? []) this.out.write(line);
  }
}
