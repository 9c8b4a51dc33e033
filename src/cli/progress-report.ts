// Rendering the store's per-image state for a terminal: one progress bar per image (bytes,
// rate, ETA), redrawn in place on a TTY, or plain lines (one per state change, and a progress
// line at most every `plainIntervalMs` per image) when the output is a pipe or a log file.
// Written by hand (no dependency). It renders ImageHealth; it does not load anything.
import type { ImageHealth } from '../images/catalog/image-status.js';
import { formatBytes, formatDuration } from '../images/progress.js';

export interface ReportOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** `4.17 x86_64`, padded. */
function nameOf(h: ImageHealth): string {
  return `${h.openshift_version} ${h.cpu_architecture}`;
}

/** What follows the state: progress figures, the reason of a failure, the size of a ready image. */
export function describeHealth(h: ImageHealth): string {
  switch (h.state) {
    case 'downloading':
    case 'extracting':
    case 'verifying': {
      if (h.bytes === undefined) return '';
      const parts = [
        h.total_bytes !== undefined ? `${formatBytes(h.bytes)} / ${formatBytes(h.total_bytes)}` : formatBytes(h.bytes),
      ];
      if (h.percent !== undefined) parts.push(`${h.percent.toFixed(1)}%`);
      if (h.bytes_per_second) parts.push(`${formatBytes(h.bytes_per_second)}/s`);
      if (h.eta_seconds !== undefined) parts.push(`ETA ${formatDuration(h.eta_seconds)}`);
      return parts.join('  ');
    }
    case 'ready': {
      const minimal =
        h.minimal_iso && h.minimal_iso.state !== 'absent'
          ? `  minimal ISO: ${h.minimal_iso.state}${h.minimal_iso.reason ? ` (${h.minimal_iso.reason})` : ''}`
          : '';
      return `${h.size !== undefined ? formatBytes(h.size) : ''}${h.sha256 ? `  sha256:${h.sha256.slice(0, 12)}…` : ''}${minimal}`;
    }
    case 'failed':
      return `${h.reason ?? ''}${h.retry_at ? `  (retrying at ${h.retry_at})` : ''}`;
    case 'evicted':
      return h.reason ?? '';
    case 'pending':
      return '';
  }
}

export function plainLine(h: ImageHealth): string {
  return `${nameOf(h)}  ${h.state}${suffix(describeHealth(h))}`;
}

/** A one-line bar `4.17 x86_64  downloading [#####.....]  42.0%  …`, cut to `width`. */
export function barLine(h: ImageHealth, width: number, nameWidth: number): string {
  const head = `${nameOf(h).padEnd(nameWidth)}  ${h.state.padEnd(11)}`;
  let line: string;
  if (h.percent !== undefined && (h.state === 'downloading' || h.state === 'extracting' || h.state === 'verifying')) {
    const cells = 24;
    const filled = Math.round((h.percent / 100) * cells);
    line = `${head} [${'#'.repeat(filled)}${'.'.repeat(cells - filled)}]${suffix(describeHealth(h))}`;
  } else {
    line = `${head}${suffix(describeHealth(h))}`;
  }
  return line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;
}

function suffix(text: string): string {
  return text ? `  ${text}` : '';
}

/** Follows a changing list of image states and writes them to `out` as bars (TTY) or plain lines. */
export class ProgressReport {
  private drawnLines = 0;
  private lastDraw = 0;
  private drawnStates = '';
  private readonly lastState = new Map<number, string>();
  private readonly lastPlainProgress = new Map<number, number>();

  constructor(
    private readonly out: ReportOutput,
    private readonly plainIntervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Renders `images` (on a TTY at most 5 redraws a second, plus one per state change). */
  update(images: readonly ImageHealth[], force = false): void {
    if (this.out.isTTY) this.draw(images, force);
    else this.plain(images);
  }

  private draw(images: readonly ImageHealth[], force: boolean): void {
    const now = this.now();
    const states = images.map((h) => h.state).join();
    if (!force && states === this.drawnStates && now - this.lastDraw < 200) return;
    this.lastDraw = now;
    this.drawnStates = states;
    const width = this.out.columns ?? 100;
    const nameWidth = Math.max(...images.map((h) => nameOf(h).length), 0);
    let text = this.drawnLines > 0 ? `\x1b[${this.drawnLines}A` : '';
    for (const h of images) text += `\r\x1b[2K${barLine(h, width, nameWidth)}\n`;
    this.out.write(text);
    this.drawnLines = images.length;
  }

  private plain(images: readonly ImageHealth[]): void {
    const now = this.now();
    images.forEach((h, index) => {
      const working = h.state === 'downloading' || h.state === 'extracting' || h.state === 'verifying';
      const stateKey = `${h.state}|${working ? '' : describeHealth(h)}`;
      if (this.lastState.get(index) !== stateKey) {
        this.lastState.set(index, stateKey);
        this.lastPlainProgress.set(index, now);
        this.out.write(`${plainLine(h)}\n`);
      } else if (
        working &&
        h.bytes !== undefined &&
        now - (this.lastPlainProgress.get(index) ?? 0) >= this.plainIntervalMs
      ) {
        this.lastPlainProgress.set(index, now);
        this.out.write(`${plainLine(h)}\n`);
      }
    });
  }
}
