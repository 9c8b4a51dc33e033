import { open } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FormatError, PayloadTooLargeError } from '../errors.js';
import { parseLiveIso } from './live-layout.js';
import type { KargsAreas, LiveManifest } from './manifest.js';
import { decodeKargsArea, encodeKargsArea, readEmbeddedKargs, readIgnitionArea } from './read-embed-areas.js';
import { FixtureSet, fixtureNames, HAVE_FIXTURES, HAVE_XZ } from './test-fixtures.js';

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
    expect(decodeKargsArea(encodeKargsArea('console=ttyS0 rd.neednet=1', a), a.pad, a.end)).toBe('console=ttyS0 rd.neednet=1');
  });

  it('rejects invalid UTF-8', () => {
    expect(() => decodeKargsArea(Buffer.from([0x61, 0xff, 0x23]), '#', '\n', 'area X')).toThrow(/decoding area X: invalid UTF-8/);
  });
});

describe.skipIf(!HAVE_FIXTURES || !HAVE_XZ)('kargs and Ignition areas of the fixtures', () => {
  let fx: FixtureSet;
  const withKargs: string[] = [];
  const manifests = new Map<string, LiveManifest>();

  beforeAll(async () => {
    fx = FixtureSet.create('kargs');
    for (const name of fx.names()) {
      if (!name.startsWith('embed-areas-')) continue;
      const m = await parseLiveIso(fx.path(name));
      manifests.set(name, m);
      if (m.kargs !== undefined) withKargs.push(name);
    }
  });
  afterAll(() => fx.remove());

  const get = (name: string): { file: string; m: LiveManifest } => {
    const m = manifests.get(name);
    if (m === undefined) throw new Error(`fixture ${name} was not parsed`);
    return { file: fx.path(name), m };
  };

  it.each(fixtureNames().filter((n) => n.startsWith('embed-areas-')))(
    '%s: encoding the defaults reproduces every area byte for byte',
    (name) => {
      const { file, m } = get(name);
      const image = readFileSync(file);
      for (const loc of m.kargs?.locations ?? []) {
        const kargs = m.kargs as KargsAreas;
        expect(encodeKargsArea(kargs.default, kargs, loc).equals(image.subarray(loc.offset, loc.offset + kargs.size)), loc.file).toBe(true);
      }
    },
  );

  it.each(fixtureNames().filter((n) => n.startsWith('embed-areas-')))('%s: the pristine Ignition area is all zeros', async (name) => {
    const { file, m } = get(name);
    const area = await readIgnitionArea(file, m);
    expect(area.length).toBe(m.ignition.length);
    expect(area.every((b) => b === 0)).toBe(true);
  });

  it('reads kargs written into every area, through a FileHandle too', async () => {
    const name = 'embed-areas-2023-07.x86_64.iso';
    const { file, m } = get(name);
    const kargs = m.kargs as KargsAreas;
    const image = readFileSync(file);
    const custom = `${kargs.default} console=ttyS0,115200n8 ignition.config.url=http://example.invalid/x`;
    for (const loc of kargs.locations) encodeKargsArea(custom, kargs, loc).copy(image, loc.offset);
    const copy = fx.patched(name, 'custom', (buf) => image.copy(buf));
    expect(await readEmbeddedKargs(copy, m)).toBe(custom);
    const fh = await open(copy, 'r');
    try {
      expect(await readEmbeddedKargs(fh, m)).toBe(custom);
    } finally {
      await fh.close();
    }
    // the manifest still reports the shipped defaults from kargs.json
    expect((await parseLiveIso(copy)).kargs?.default).toBe(kargs.default);
  });

  it('found kargs areas in every fixture that has them', () => {
    expect(withKargs.length).toBeGreaterThanOrEqual(8);
  });
});
