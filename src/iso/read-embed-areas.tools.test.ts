import { open } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { unavailable } from '../../test/support/requirements.js';
import { encodeKargsArea } from './kargs-codec.js';
import { parseLiveIso } from './live-layout.js';
import type { KargsAreas, LiveManifest } from './manifest.js';
import { readEmbeddedKargs, readIgnitionArea } from './read-embed-areas.js';
import { FixtureSet, fixtureNames, HAVE_FIXTURES, HAVE_XZ } from './test-support/fixtures.js';

describe.skipIf(unavailable({ '../shared fixtures': HAVE_FIXTURES, xz: HAVE_XZ }))(
  'kargs and Ignition areas of the fixtures',
  () => {
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
          expect(
            encodeKargsArea(kargs.default, kargs, loc).equals(image.subarray(loc.offset, loc.offset + kargs.size)),
            loc.file,
          ).toBe(true);
        }
      },
    );

    it.each(fixtureNames().filter((n) => n.startsWith('embed-areas-')))(
      '%s: the pristine Ignition area is all zeros',
      async (name) => {
        const { file, m } = get(name);
        const area = await readIgnitionArea(file, m);
        expect(area.length).toBe(m.ignition.length);
        expect(area.every((b) => b === 0)).toBe(true);
      },
    );

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
  },
);
