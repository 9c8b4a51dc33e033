// The start's JSON log held back on a terminal (held-log.ts): nothing through until release, then
// everything in order and later lines straight through; never more than HOLD_MAX_LINES held, and
// never held longer than HOLD_MAX_MS (a fake clock moves it).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HOLD_MAX_LINES, HOLD_MAX_MS, HeldLog } from './held-log.js';

function sink() {
  const lines: string[] = [];
  return { lines, write: (l: string) => void lines.push(l) };
}

describe('HeldLog', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds lines until release, then writes them in order and passes later ones through', () => {
    const out = sink();
    const log = new HeldLog(out);
    log.write('a\n');
    log.write('b\n');
    expect(out.lines).toEqual([]);
    log.release();
    expect(out.lines).toEqual(['a\n', 'b\n']);
    log.write('c\n');
    log.release(); // idempotent
    expect(out.lines).toEqual(['a\n', 'b\n', 'c\n']);
  });

  it('lets go at HOLD_MAX_LINES lines', () => {
    const out = sink();
    const log = new HeldLog(out);
    for (let i = 0; i < HOLD_MAX_LINES - 1; i++) log.write(`${i}\n`);
    expect(out.lines).toHaveLength(0);
    log.write('last\n');
    expect(out.lines).toHaveLength(HOLD_MAX_LINES);
    expect(out.lines.at(-1)).toBe('last\n');
  });

  it('lets go after HOLD_MAX_MS without a release', () => {
    vi.useFakeTimers();
    const out = sink();
    const log = new HeldLog(out);
    log.write('slow start\n');
    vi.advanceTimersByTime(HOLD_MAX_MS - 1);
    expect(out.lines).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(out.lines).toEqual(['slow start\n']);
  });
});
