import { describe, expect, it } from 'vitest';
import { MAX_RANGES, coalesceRanges, parseRange, rangesLength, type RangeResult } from './range.js';

const ranges = (...pairs: [number, number][]): RangeResult => ({
  kind: 'ranges',
  ranges: pairs.map(([start, end]) => ({ start, end })),
});

describe('parseRange', () => {
  it('treats a missing header as absent', () => {
    expect(parseRange(undefined, 100)).toEqual({ kind: 'ignore', reason: 'absent' });
  });

  it('parses the three range-spec forms', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual(ranges([0, 9]));
    expect(parseRange('bytes=90-', 100)).toEqual(ranges([90, 99]));
    expect(parseRange('bytes=-10', 100)).toEqual(ranges([90, 99]));
    expect(parseRange('bytes=0-0', 100)).toEqual(ranges([0, 0]));
    expect(parseRange('bytes=99-99', 100)).toEqual(ranges([99, 99]));
    expect(parseRange('bytes=0-', 100)).toEqual(ranges([0, 99]));
  });

  it('clips the end and long suffixes to the representation', () => {
    expect(parseRange('bytes=50-1000', 100)).toEqual(ranges([50, 99]));
    expect(parseRange('bytes=-1000', 100)).toEqual(ranges([0, 99]));
    expect(parseRange('bytes=-100', 100)).toEqual(ranges([0, 99]));
    expect(parseRange('bytes=0-99999999999999999999999', 100)).toEqual(ranges([0, 99]));
    expect(parseRange('bytes=-99999999999999999999999', 100)).toEqual(ranges([0, 99]));
  });

  it('accepts the unit in any case and tolerates blanks and empty list elements', () => {
    expect(parseRange('Bytes=0-1', 100)).toEqual(ranges([0, 1]));
    expect(parseRange('BYTES=0-1', 100)).toEqual(ranges([0, 1]));
    expect(parseRange('bytes = 0 - 1 ,\t 5-6', 100)).toEqual(ranges([0, 1], [5, 6]));
    expect(parseRange('bytes=,0-1,,5-6,', 100)).toEqual(ranges([0, 1], [5, 6]));
    expect(parseRange('bytes=- 10', 100)).toEqual(ranges([90, 99]));
    expect(parseRange('bytes=007-008', 100)).toEqual(ranges([7, 8]));
  });

  it('ignores other range units', () => {
    expect(parseRange('items=0-1', 100)).toEqual({ kind: 'ignore', reason: 'unit' });
    expect(parseRange('byte=0-1', 100)).toEqual({ kind: 'ignore', reason: 'unit' });
    expect(parseRange('bytesx=0-1', 100)).toEqual({ kind: 'ignore', reason: 'unit' });
    expect(parseRange('=0-1', 100)).toEqual({ kind: 'ignore', reason: 'unit' });
  });

  it.each([
    'bytes',
    'bytes 0-1',
    'bytes=',
    'bytes=,',
    'bytes= , ',
    'bytes=abc',
    'bytes=1',
    'bytes=-',
    'bytes=--1',
    'bytes=5-1',
    'bytes=0-1-2',
    'bytes=0-1 2-3',
    'bytes=0-1;2-3',
    'bytes=+1-2',
    'bytes=0x10-20',
    'bytes=1.5-2',
    'bytes=0-1,5-3',
    'bytes=0-1, bytes=2-3',
    'bytes=99999999999999999999999-99999999999999999999998',
  ])('ignores the syntactically invalid %j', (header) => {
    expect(parseRange(header, 100)).toEqual({ kind: 'ignore', reason: 'syntax' });
  });

  it('reports unsatisfiable when no spec overlaps the representation', () => {
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=100-200', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=100-,-0,500-600', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=99999999999999999999999-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=99999999999999999999998-99999999999999999999999', 100)).toEqual({ kind: 'unsatisfiable' });
  });

  it('treats every range of an empty representation as unsatisfiable', () => {
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-0', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=abc', 0)).toEqual({ kind: 'ignore', reason: 'syntax' });
  });

  it('keeps the satisfiable specs of a mixed header', () => {
    expect(parseRange('bytes=500-,0-9', 100)).toEqual(ranges([0, 9]));
    expect(parseRange('bytes=-0,10-19,200-300', 100)).toEqual(ranges([10, 19]));
  });

  it('coalesces overlapping and adjacent ranges', () => {
    expect(parseRange('bytes=0-9,5-20,21-30', 100)).toEqual(ranges([0, 30]));
    expect(parseRange('bytes=0-9,10-19', 100)).toEqual(ranges([0, 19]));
    expect(parseRange('bytes=0-9,11-19', 100)).toEqual(ranges([0, 9], [11, 19]));
    expect(parseRange('bytes=0-,0-,0-,0-', 100)).toEqual(ranges([0, 99]));
    expect(parseRange('bytes=-10,0-', 100)).toEqual(ranges([0, 99]));
  });

  it('keeps request order for parts, merged ranges taking their earliest position', () => {
    expect(parseRange('bytes=50-59,0-9', 100)).toEqual(ranges([50, 59], [0, 9]));
    expect(parseRange('bytes=80-89,0-9,5-14,40-49', 100)).toEqual(ranges([80, 89], [0, 14], [40, 49]));
    expect(parseRange('bytes=80-89,40-49,5-14,0-9', 100)).toEqual(ranges([80, 89], [40, 49], [0, 14]));
  });

  it('defeats overlap amplification: the payload never exceeds the representation', () => {
    const header = 'bytes=' + Array.from({ length: MAX_RANGES }, () => '0-').join(',');
    const result = parseRange(header, 1_000_000);
    expect(result).toEqual(ranges([0, 999_999]));
  });

  it(`accepts ${MAX_RANGES} specs and ignores the header beyond that`, () => {
    const specs = (n: number): string => Array.from({ length: n }, (_, k) => `${k * 2}-${k * 2}`).join(',');
    const atCap = parseRange(`bytes=${specs(MAX_RANGES)}`, 1000);
    expect(atCap.kind).toBe('ranges');
    expect(atCap.kind === 'ranges' && atCap.ranges.length).toBe(MAX_RANGES);
    expect(parseRange(`bytes=${specs(MAX_RANGES + 1)}`, 1000)).toEqual({ kind: 'ignore', reason: 'too-many' });
    // the cap counts specs, satisfiable or not, and stops parsing early
    expect(parseRange(`bytes=${specs(MAX_RANGES + 1)},garbage`, 1)).toEqual({ kind: 'ignore', reason: 'too-many' });
    expect(parseRange('bytes=0-0,2-2,4-4', 1000, 2)).toEqual({ kind: 'ignore', reason: 'too-many' });
  });

  it('handles positions beyond 2^53 exactly where it matters', () => {
    const big = 2 ** 53;
    expect(parseRange(`bytes=0-${big + 10}`, big)).toEqual(ranges([0, big - 1]));
    expect(parseRange(`bytes=-${big}`, 1000)).toEqual(ranges([0, 999]));
    // equal huge values are a valid (unsatisfiable) spec, not last < first
    expect(parseRange('bytes=18446744073709551616-18446744073709551616', 10)).toEqual({ kind: 'unsatisfiable' });
  });
});

describe('coalesceRanges', () => {
  it('returns the input when nothing merges', () => {
    const input = [
      { start: 0, end: 1 },
      { start: 3, end: 4 },
    ];
    expect(coalesceRanges(input)).toBe(input);
  });

  it('merges contained ranges', () => {
    expect(
      coalesceRanges([
        { start: 0, end: 100 },
        { start: 10, end: 20 },
        { start: 30, end: 40 },
      ]),
    ).toEqual([{ start: 0, end: 100 }]);
  });

  it('totals lengths', () => {
    expect(
      rangesLength([
        { start: 0, end: 9 },
        { start: 20, end: 20 },
      ]),
    ).toBe(11);
  });
});
