import { describe, expect, it } from 'vitest';
import { parseHttpDate } from './http-date.js';

describe('parseHttpDate', () => {
  const expected = Date.UTC(1994, 10, 6, 8, 49, 37);

  it('parses the three formats', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(expected);
    expect(parseHttpDate('Sun Nov 06 08:49:37 1994')).toBe(expected);
    expect(parseHttpDate('  Sun, 06 Nov 1994 08:49:37 GMT ')).toBe(expected);
  });

  it('round-trips Date#toUTCString', () => {
    for (const ms of [0, 951_782_400_000, 1_709_164_800_000, Date.UTC(2024, 1, 29, 23, 59, 59)]) {
      expect(parseHttpDate(new Date(ms).toUTCString())).toBe(ms);
    }
  });

  it('reads two-digit years as at most 50 years ahead', () => {
    const year = new Date().getUTCFullYear();
    const soon = (year + 10) % 100;
    const farAhead = (year + 60) % 100;
    const pad = (n: number): string => String(n).padStart(2, '0');
    expect(new Date(parseHttpDate(`Monday, 01-Jan-${pad(soon)} 00:00:00 GMT`) ?? 0).getUTCFullYear()).toBe(year + 10);
    expect(new Date(parseHttpDate(`Monday, 01-Jan-${pad(farAhead)} 00:00:00 GMT`) ?? 0).getUTCFullYear()).toBe(
      year - 40,
    );
  });

  it.each([
    '',
    'yesterday',
    '1994-11-06T08:49:37Z',
    '784111777',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 nov 1994 08:49:37 GMT',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 31 Feb 1994 08:49:37 GMT',
    'Sun, 29 Feb 2023 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 0094 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMTX',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sun, 06-Nov-94 08:49:37 GMT',
    'Sun Nov  6 08:49:37 94',
    'Sun Nov x6 08:49:37 1994',
  ])('rejects %j', (value) => {
    expect(parseHttpDate(value)).toBeUndefined();
  });

  it('accepts a leap day and a leap second', () => {
    expect(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT')).toBe(Date.UTC(2024, 1, 29));
    expect(parseHttpDate('Sat, 31 Dec 2016 23:59:60 GMT')).toBe(Date.UTC(2017, 0, 1));
  });
});
