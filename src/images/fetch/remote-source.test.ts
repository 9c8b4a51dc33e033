// The remote-source contract's small parsers and the bounded body collector, as tables:
// Content-Range of a 206, the size in a 416's Content-Range, and a ranged body that must be
// exactly as long as asked.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';

import { collectExactly, parseContentRange, parseUnsatisfiedRange } from './remote-source.js';

describe('parseContentRange: table', () => {
  it.each<[string | undefined, ReturnType<typeof parseContentRange>]>([
    ['bytes 100-199/200', { start: 100, end: 199, total: 200 }],
    ['bytes 0-0/1', { start: 0, end: 0, total: 1 }],
    ['bytes 5-9/*', { start: 5, end: 9, total: undefined }],
    ['  bytes 1-2/3  ', { start: 1, end: 2, total: 3 }],
    ['bytes 8589934592-8589934593/17179869184', { start: 2 ** 33, end: 2 ** 33 + 1, total: 2 ** 34 }],
    ['bytes */200', undefined],
    ['bytes 1-2', undefined],
    ['bytes=1-2/3', undefined],
    ['items 1-2/3', undefined],
    ['bytes -1-2/3', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j', (value, expected) => {
    expect(parseContentRange(value)).toEqual(expected);
  });
});

describe('parseUnsatisfiedRange: table', () => {
  it.each<[string | undefined, number | undefined]>([
    ['bytes */200', 200],
    ['bytes */0', 0],
    [' bytes */7 ', 7],
    ['bytes 0-1/200', undefined],
    ['bytes */*', undefined],
    ['bytes */-1', undefined],
    [undefined, undefined],
  ])('%j', (value, expected) => {
    expect(parseUnsatisfiedRange(value)).toBe(expected);
  });
});

describe('collectExactly: table', () => {
  const chunks = (...parts: string[]): Readable => Readable.from(parts.map((p) => Buffer.from(p)));
  it.each<[string, () => Readable, number, string]>([
    ['one chunk of the length', () => chunks('abcd'), 4, 'abcd'],
    ['several chunks adding up', () => chunks('ab', 'c', 'd'), 4, 'abcd'],
    ['nothing, asked for nothing', () => chunks(), 0, ''],
  ])('%s', async (_name, stream, length, expected) => {
    expect((await collectExactly(stream(), length, 'range 0-3')).toString()).toBe(expected);
  });

  it.each<[string, () => Readable, number, string]>([
    ['short', () => chunks('ab'), 4, 'range 0-3: the source sent 2 of 4 bytes'],
    ['empty', () => chunks(), 4, 'range 0-3: the source sent 0 of 4 bytes'],
    ['long, in one chunk', () => chunks('abcde'), 4, 'range 0-3: the source sent more than the 4 bytes asked for'],
    [
      'long, in the last chunk',
      () => chunks('ab', 'cd', 'e'),
      4,
      'range 0-3: the source sent more than the 4 bytes asked for',
    ],
  ])('%s: refused', async (_name, stream, length, message) => {
    await expect(collectExactly(stream(), length, 'range 0-3')).rejects.toThrow(message);
  });

  it('stops reading a source that sends too much', async () => {
    const source = chunks('abcde', 'never read');
    await expect(collectExactly(source, 4, 'range 0-3')).rejects.toThrow('more than');
    expect(source.destroyed).toBe(true);
  });
});
