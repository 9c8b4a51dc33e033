// Progress of one long copy (writing an ISO, extracting a rootfs, downloading): a bar redrawn in
// place when stderr is a terminal, plain lines at every tenth otherwise (logs, pipes, CI), and
// nothing with `-q`. Always on stderr, so `-o -` keeps stdout clean.
// Does: count bytes and render. Does NOT: copy anything or decide the total.
import type { CliOutput } from '../verb.js';

/** Redraws are limited to this many per second on a terminal: a fast copy must not flood it. */
const REDRAWS_PER_SECOND = 10;
/** Plain lines are printed at each multiple of this fraction. */
const PLAIN_STEP = 0.1;
const BAR_WIDTH = 30;

export interface ProgressOptions {
  quiet: boolean;
  stderr: CliOutput;
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${units[unit]}`;
}

export class ProgressMeter {
  private done = 0;
  private lastDraw = 0;
  private nextPlainStep = PLAIN_STEP;
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly options: ProgressOptions,
  ) {
    this.tty = options.stderr.isTTY === true;
  }

  add(bytes: number): void {
    this.done += bytes;
    if (this.options.quiet) return;
    const fraction = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    if (this.tty) {
      const now = Date.now();
      if (now - this.lastDraw < 1000 / REDRAWS_PER_SECOND) return;
      this.lastDraw = now;
      this.draw(fraction);
      return;
    }
    if (fraction >= this.nextPlainStep && fraction < 1) {
      const step = Math.floor(fraction / PLAIN_STEP);
      this.options.stderr.write(
        `${this.label}: ${step * 10}% (${formatBytes(this.done)} of ${formatBytes(this.total)})\n`,
      );
      this.nextPlainStep = (step + 1) * PLAIN_STEP;
    }
  }

  /** The final line (100 %). */
  finish(): void {
    if (this.options.quiet) return;
    if (this.tty) {
      this.draw(1);
      this.options.stderr.write('\n');
    } else {
      this.options.stderr.write(`${this.label}: done (${formatBytes(this.done)})\n`);
    }
  }

  private draw(fraction: number): void {
    const filled = Math.round(fraction * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
    this.options.stderr.write(
      `\r${this.label} [${bar}] ${String(Math.round(fraction * 100)).padStart(3)}% ${formatBytes(this.done)}\x1b[K`,
    );
  }
}
