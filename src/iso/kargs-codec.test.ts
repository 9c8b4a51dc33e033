import { describe, expect, it } from 'vitest';

import { FormatError, PayloadTooLargeError } from '../errors.js';
import { decodeKargsArea, encodeKargsArea, trimKargs } from './kargs-codec.js';
import type { KargsAreas } from './manifest.js';

const areas = (size: number, pad = '#', end = '\n'): KargsAreas => ({
  default: 'a',
  size,
  pad,
  end,
  locations: [{ file: 'EFI/fedora/grub.cfg', offset: 0 }],
  source: 'kargs.json',
});

describe('encodeKargsArea (coreos-installer set_kargs)', () => {
  it('writes kargs, the end character, then pad up to the area size', () => {
    expect(encodeKargsArea('a b', areas(8)).toString('latin1')).toBe('a b\n####');
  });

  it('trims the kargs first', () => {
    expect(encodeKargsArea('  a b \t', areas(8)).toString('latin1')).toBe('a b\n####');
  });

  it.each([
    ['NEL, no-break and ideographic spaces (Unicode White_Space)', '\u0085\u00a0a b\u3000\n', 'a b'],
    ['a BOM: JS white space, not Unicode White_Space (str::trim keeps it)', '\ufeffa\ufeff', '\ufeffa\ufeff'],
    ['only white space', ' \t ', ''],
    ['a long inner run, kept and read once (issue 37)', `a${' '.repeat(50_000)}b`, `a${' '.repeat(50_000)}b`],
  ])('trimKargs trims White_Space at both ends only: %s', (_name, input, trimmed) => {
    expect(trimKargs(input)).toBe(trimmed);
  });

  it('fits exactly size - 1 bytes of kargs', () => {
    expect(encodeKargsArea('abcdefg', areas(8)).toString('latin1')).toBe('abcdefg\n');
  });

  it('throws PayloadTooLargeError naming both sizes when kargs + end exceed the area', () => {
    const err = (() => {
      try {
        encodeKargsArea('abcdefgh', areas(8));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ payloadSize: 9, capacity: 8 });
    expect((err as Error).message).toBe('kernel arguments plus terminator is 9 bytes but only 8 bytes are available');
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(() => encodeKargsArea('é'.repeat(4), areas(8))).toThrow(PayloadTooLargeError);
    expect(encodeKargsArea('é'.repeat(3), areas(8))).toEqual(Buffer.from('ééé\n#', 'utf8'));
  });

  it('uses the location pad and end (s390x uses NUL for both)', () => {
    const a = areas(6);
    const loc = { file: 'images/cdboot.img', offset: 0, pad: '\0', end: '\0' };
    expect(encodeKargsArea('ab', a, loc)).toEqual(Buffer.from([0x61, 0x62, 0, 0, 0, 0]));
  });

  it('rejects non-ASCII pad or end characters', () => {
    expect(() => encodeKargsArea('a', areas(4, 'é'))).toThrow(FormatError);
  });
});

describe('decodeKargsArea (coreos-installer KargEmbedAreas::parse)', () => {
  it('strips trailing pad, then trailing end, then surrounding whitespace', () => {
    expect(decodeKargsArea(Buffer.from('a b\n####'), '#', '\n')).toBe('a b');
    expect(decodeKargsArea(Buffer.from(' a b \n\n##'), '#', '\n')).toBe('a b');
    expect(decodeKargsArea(Buffer.from('ab\0\0\0'), '\0', '\0')).toBe('ab');
    expect(decodeKargsArea(Buffer.from('a#b\n##'), '#', '\n')).toBe('a#b');
  });

  it('round-trips what encodeKargsArea writes', () => {
    const a = areas(64);
    expect(decodeKargsArea(encodeKargsArea('console=ttyS0 rd.neednet=1', a), a.pad, a.end)).toBe(
      'console=ttyS0 rd.neednet=1',
    );
  });

  it('rejects invalid UTF-8', () => {
    expect(() => decodeKargsArea(Buffer.from([0x61, 0xff, 0x23]), '#', '\n', 'area X')).toThrow(
      /decoding area X: invalid UTF-8/,
    );
  });
});
