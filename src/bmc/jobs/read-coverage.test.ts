// Read coverage as a table: merging, the bounded summary, and the "booted" rule (every byte of the
// kernel, the initramfs and the embed area read), including the read pattern of qemu's curl driver.
import { describe, expect, it } from 'vitest';
import { curlReadPlan } from '../../../test/support/redfish-emulator/curl-read-plan.js';
import type { ReadRange } from '../store/records.js';
import { addRange, bootCoverage, coveredBytes, mergeRanges } from './read-coverage.js';

describe('mergeRanges', () => {
  it.each<[string, ReadRange[], ReadRange[]]>([
    ['nothing', [], []],
    ['empty ranges dropped', [[5, 5]], []],
    [
      'sorted',
      [
        [10, 20],
        [0, 5],
      ],
      [
        [0, 5],
        [10, 20],
      ],
    ],
    [
      'touching joined',
      [
        [0, 5],
        [5, 9],
      ],
      [[0, 9]],
    ],
    [
      'overlapping joined',
      [
        [0, 10],
        [3, 4],
        [8, 15],
      ],
      [[0, 15]],
    ],
    [
      'gaps kept',
      [
        [0, 1],
        [2, 3],
      ],
      [
        [0, 1],
        [2, 3],
      ],
    ],
  ])('%s', (_name, input, merged) => {
    expect(mergeRanges(input)).toEqual(merged);
  });
});

describe('addRange keeps at most max ranges, filling the smallest gaps', () => {
  it.each<[string, ReadRange[], ReadRange, number, ReadRange[]]>([
    [
      'under the cap',
      [[0, 1]],
      [5, 6],
      4,
      [
        [0, 1],
        [5, 6],
      ],
    ],
    [
      'smallest gap filled',
      [
        [0, 1],
        [10, 11],
      ],
      [12, 13],
      2,
      [
        [0, 1],
        [10, 13],
      ],
    ],
    [
      'first gap the smallest',
      [
        [0, 1],
        [2, 3],
      ],
      [100, 101],
      2,
      [
        [0, 3],
        [100, 101],
      ],
    ],
    [
      'merging needs no filling',
      [
        [0, 1],
        [2, 3],
      ],
      [1, 2],
      1,
      [[0, 3]],
    ],
  ])('%s', (_name, ranges, added, max, result) => {
    expect(addRange(ranges, added, max)).toEqual(result);
  });

  it('never over the cap with a thousand scattered reads, and never loses a read byte', () => {
    let ranges: ReadRange[] = [];
    const reads: ReadRange[] = [];
    for (let i = 0; i < 1000; i++) {
      const start = (i * 7919) % 100_000;
      reads.push([start, start + 10]);
      ranges = addRange(ranges, [start, start + 10], 16);
      expect(ranges.length).toBeLessThanOrEqual(16);
    }
    for (const r of reads) expect(coveredBytes(ranges, r)).toBe(10);
  });
});

describe('bootCoverage', () => {
  const kernel: ReadRange = [100_000, 200_000];
  const initrd: ReadRange = [200_000, 900_000];
  const embed: ReadRange = [1_000_000, 1_262_144];
  const boot = [kernel, initrd, embed];
  it.each<[string, ReadRange[], ReadRange[], { covered: number; total: number; booted: boolean | undefined }]>([
    ['nothing read', [], boot, { covered: 0, total: 1_062_144, booted: false }],
    [
      'only the volume descriptors (a BMC mounting)',
      [[32_768, 36_864]],
      boot,
      { covered: 0, total: 1_062_144, booted: false },
    ],
    [
      'kernel and initramfs, not the embed area',
      [[0, 900_000]],
      boot,
      { covered: 800_000, total: 1_062_144, booted: false },
    ],
    [
      'one byte of the embed area missing',
      [
        [0, 900_000],
        [1_000_000, 1_262_143],
      ],
      boot,
      { covered: 1_062_143, total: 1_062_144, booted: false },
    ],
    [
      'all three in full',
      [
        [0, 900_000],
        [999_000, 1_300_000],
      ],
      boot,
      { covered: 1_062_144, total: 1_062_144, booted: true },
    ],
    ['the whole image copied', [[0, 5_000_000]], boot, { covered: 1_062_144, total: 1_062_144, booted: true }],
    ['no boot file known: the rule does not apply', [[0, 5_000_000]], [], { covered: 0, total: 0, booted: undefined }],
  ])('%s', (_name, ranges, extents, expected) => {
    expect(bootCoverage(ranges, extents)).toEqual(expected);
  });

  it("qemu's curl driver reading a whole 12 MiB image covers the boot files; the first 4 MiB do not", () => {
    const size = 12 * 1024 * 1024;
    const read = (maxBytes: number) =>
      curlReadPlan(size, { maxBytes }).reduce<ReadRange[]>((all, r) => addRange(all, [r.start, r.end + 1]), []);
    const files: ReadRange[] = [
      [2 * 1024 * 1024, 6 * 1024 * 1024],
      [6 * 1024 * 1024, 10 * 1024 * 1024],
      [10 * 1024 * 1024, 10 * 1024 * 1024 + 262_144],
    ];
    expect(bootCoverage(read(size), files).booted).toBe(true);
    expect(bootCoverage(read(4 * 1024 * 1024), files).booted).toBe(false);
  });
});
