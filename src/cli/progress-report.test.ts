import { describe, expect, it } from 'vitest';
import type { ImageHealth } from '../images/catalog/image-status.js';
import { ProgressReport, barLine, plainLine } from './progress-report.js';
import { TransferProgress, formatBytes, formatDuration } from '../images/progress.js';

const base: ImageHealth = {
  openshift_version: '4.17',
  version: '417.1',
  cpu_architecture: 'x86_64',
  source: 'https://m/x.iso',
  state: 'pending',
  integrity: { state: 'unverified', mismatches: 0 },
};
const downloading: ImageHealth = {
  ...base,
  state: 'downloading',
  bytes: 512 * 2 ** 20,
  total_bytes: 2 ** 30,
  percent: 50,
  bytes_per_second: 10 * 2 ** 20,
  eta_seconds: 52,
};

describe('TransferProgress', () => {
  it('computes percent, rate over the recent window and ETA', () => {
    let t = 0;
    const p = new TransferProgress(1000, 100, () => t);
    t = 1000;
    p.add(200);
    expect(p.snapshot()).toEqual({ bytes: 300, total: 1000, percent: 30, bytesPerSecond: 200, etaSeconds: 4 });
    t = 10_000;
    p.add(100);
    expect(p.snapshot().bytesPerSecond).toBe(11); // the window moved on: 100 bytes over 9 s
  });

  it('has no percent or ETA without a total', () => {
    expect(new TransferProgress(undefined).snapshot()).toMatchObject({ percent: undefined, etaSeconds: undefined });
  });
});

describe('formatting', () => {
  it('formats bytes and durations for people', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(1.2 * 2 ** 30)).toBe('1.2 GiB');
    expect(formatDuration(9)).toBe('9s');
    expect(formatDuration(75)).toBe('1m15s');
    expect(formatDuration(3725)).toBe('1h02m');
  });

  it('renders plain lines and bars', () => {
    expect(plainLine(downloading)).toBe('4.17 x86_64  downloading  512 MiB / 1.0 GiB  50.0%  10 MiB/s  ETA 52s');
    expect(plainLine({ ...base, state: 'failed', reason: 'HTTP 404' })).toBe('4.17 x86_64  failed  HTTP 404');
    expect(barLine(downloading, 200, 11)).toBe(
      '4.17 x86_64  downloading [############............]  512 MiB / 1.0 GiB  50.0%  10 MiB/s  ETA 52s',
    );
    expect(barLine(downloading, 30, 11)).toHaveLength(30);
  });
});

describe('ProgressReport', () => {
  it('writes a plain line per state change and progress lines at most every interval', () => {
    let t = 0;
    const out = {
      text: '',
      write(s: string) {
        this.text += s;
      },
    };
    const report = new ProgressReport(out, 1000, () => t);
    report.update([base]);
    report.update([downloading]);
    t = 500;
    report.update([{ ...downloading, bytes: 600 * 2 ** 20 }]);
    t = 1500;
    report.update([{ ...downloading, bytes: 700 * 2 ** 20 }]);
    report.update([{ ...base, state: 'ready', size: 2 ** 30 }]);
    expect(
      out.text
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('  ').slice(0, 3).join('  ')),
    ).toEqual([
      '4.17 x86_64  pending',
      '4.17 x86_64  downloading  512 MiB / 1.0 GiB',
      '4.17 x86_64  downloading  700 MiB / 1.0 GiB',
      '4.17 x86_64  ready  1.0 GiB',
    ]);
  });
});
