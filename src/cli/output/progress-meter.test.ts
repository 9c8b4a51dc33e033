// ProgressMeter as tables: the plain lines written at each tenth when stderr is no terminal, the
// bar redrawn in place on a terminal (at most ten times a second, on a fixed clock here), nothing
// with -q; and formatBytes' units.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { formatBytes, ProgressMeter } from './progress-meter.js';

function stderr(tty: boolean): Writable & { isTTY?: boolean; text(): string } {
  let text = '';
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  }) as Writable & { isTTY?: boolean; text(): string };
  if (tty) w.isTTY = true;
  w.text = () => text;
  return w;
}

describe('ProgressMeter, not a terminal: table', () => {
  it.each<[string, number, number[], string]>([
    [
      'a line at each tenth passed, then done',
      1000,
      [50, 60, 100, 300, 490],
      'x.iso: 10% (110 B of 1000 B)\nx.iso: 20% (210 B of 1000 B)\nx.iso: 50% (510 B of 1000 B)\nx.iso: done (1000 B)\n',
    ],
    [
      'one big step: one line for the highest tenth',
      2048,
      [1900, 148],
      'x.iso: 90% (1.9 KiB of 2.0 KiB)\nx.iso: done (2.0 KiB)\n',
    ],
    ['no line at 100%: done says it', 100, [100], 'x.iso: done (100 B)\n'],
    ['a total of zero', 0, [0], 'x.iso: done (0 B)\n'],
  ])('%s', (_name, total, adds, expected) => {
    const out = stderr(false);
    const meter = new ProgressMeter('x.iso', total, { quiet: false, stderr: out });
    for (const n of adds) meter.add(n);
    meter.finish();
    expect(out.text()).toBe(expected);
  });

  it('writes nothing with -q, on a terminal or not', () => {
    for (const tty of [false, true]) {
      const out = stderr(tty);
      const meter = new ProgressMeter('x.iso', 100, { quiet: true, stderr: out });
      meter.add(50);
      meter.finish();
      expect(out.text()).toBe('');
    }
  });
});

describe('ProgressMeter on a terminal', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-01-01T00:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const bar = (percent: number, filled: number, bytes: string): string =>
    `\rx.iso [${'#'.repeat(filled)}${'-'.repeat(30 - filled)}] ${String(percent).padStart(3)}% ${bytes}\x1b[K`;

  it('redraws the bar in place at most every 100 ms, and ends it with 100% and a newline', () => {
    const out = stderr(true);
    const meter = new ProgressMeter('x.iso', 1000, { quiet: false, stderr: out });
    meter.add(100); // drawn
    meter.add(100); // same instant: skipped
    vi.setSystemTime(Date.now() + 99);
    meter.add(100); // 99 ms later: skipped
    vi.setSystemTime(Date.now() + 1);
    meter.add(200); // 100 ms after the first draw: drawn
    meter.finish();
    expect(out.text()).toBe(`${bar(10, 3, '100 B')}${bar(50, 15, '500 B')}${bar(100, 30, '500 B')}\n`);
  });
});

describe('formatBytes: table', () => {
  it.each<[number, string]>([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [5 * 2 ** 20, '5.0 MiB'],
    [1.25 * 2 ** 30, '1.3 GiB'],
    [3 * 2 ** 40, '3.0 TiB'],
    [2048 * 2 ** 40, '2048.0 TiB'],
  ])('%d → %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});
