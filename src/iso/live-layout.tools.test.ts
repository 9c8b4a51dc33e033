import { readFileSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FormatError } from '../errors.js';
import { unavailable } from '../../test/support/requirements.js';
import { SECTOR_SIZE } from './iso9660.js';
import { parseLiveIso } from './live-layout.js';
import type { Extent, LiveManifest } from './manifest.js';
import { readEmbeddedKargs } from './read-embed-areas.js';
import {
  buildFlavors,
  buildIso,
  fixtureIndex,
  fixtureNames,
  FixtureSet,
  HAVE_FIXTURES,
  HAVE_XORRISO,
  HAVE_XZ,
  makeTempDir,
  removeDir,
  renameEntry,
  replaceOnce,
  writeTree,
  xorrisoExtract,
  xorrisoReportLba,
  xorrisoVolumeId,
  XORRISO_FLAVORS,
  type XorrisoFile,
} from './test-support/fixtures.js';

const LIVE_FIXTURES = fixtureNames().filter((n) => n.startsWith('embed-areas-'));

interface KargsJson {
  default: string;
  size: number;
  files: { path: string; offset: number; pad?: string; end?: string }[];
}

function extentOf(files: Map<string, XorrisoFile>, isoPath: string): Extent {
  const f = files.get(isoPath);
  if (f === undefined) throw new Error(`xorriso does not report ${isoPath}`);
  return { offset: f.lba * SECTOR_SIZE, length: f.size };
}

/** Independent reading of the System Area headers, straight from the bytes. */
function rawLegacyHeaders(image: Buffer): {
  coreiso?: Extent;
  coreKarg?: { size: number; defaultOffset: number; offsets: number[] };
} {
  const out: ReturnType<typeof rawLegacyHeaders> = {};
  const ign = 32768 - 24;
  if (image.toString('latin1', ign, ign + 8) === 'coreiso+') {
    out.coreiso = { offset: Number(image.readBigUInt64LE(ign + 8)), length: Number(image.readBigUInt64LE(ign + 16)) };
  }
  const k = 32768 - 24 - 72;
  if (image.toString('latin1', k, k + 8) === 'coreKarg') {
    const offsets = [0, 1, 2, 3, 4, 5].map((i) => Number(image.readBigUInt64LE(k + 24 + 8 * i))).filter((o) => o !== 0);
    out.coreKarg = {
      size: Number(image.readBigUInt64LE(k + 8)),
      defaultOffset: Number(image.readBigUInt64LE(k + 16)),
      offsets,
    };
  }
  return out;
}

describe.skipIf(unavailable({ '../shared fixtures': HAVE_FIXTURES, xz: HAVE_XZ, xorriso: HAVE_XORRISO }))(
  'parseLiveIso on the coreos-installer fixtures',
  () => {
    let fx: FixtureSet;
    const manifests = new Map<string, LiveManifest>();
    const fixture = (name: string): string => fx.path(name);
    const manifestOf = async (name: string): Promise<LiveManifest> => {
      let m = manifests.get(name);
      if (m === undefined) {
        m = await parseLiveIso(fixture(name));
        manifests.set(name, m);
      }
      return m;
    };
    const scratch = (): string => path.join(fx.dir, 'scratch');
    const extractJson = <T>(name: string, isoPath: string): T | undefined => {
      const bytes = xorrisoExtract(fixture(name), isoPath, scratch());
      return bytes === undefined ? undefined : (JSON.parse(bytes.toString('utf8')) as T);
    };
    const patched = (name: string, label: string, patch: (buf: Buffer) => void): string =>
      fx.patched(name, label, patch);

    beforeAll(() => {
      fx = FixtureSet.create('live');
    });
    afterAll(() => fx.remove());

    it('covers every fixture INDEX describes', () => {
      expect([...fixtureIndex().keys()].sort()).toEqual(LIVE_FIXTURES);
    });

    it.each(LIVE_FIXTURES)('%s: image facts and INDEX expectations', async (name) => {
      const m = await manifestOf(name);
      const index = (fixtureIndex().get(name) ?? []).join('\n');
      expect(m.formatVersion).toBe(1);
      expect(m.size).toBe(statSync(fixture(name)).size);
      expect(m.volumeId).toBe(xorrisoVolumeId(fixture(name)));
      expect(m.layoutArch).toBe(name.includes('s390x') ? 's390x' : 'default');
      const kargsFromJson = /kargs\.json pointing/.test(index);
      const kargsFromHeader = /coreKarg header/.test(index);
      expect(m.kargs?.source).toBe(kargsFromJson ? 'kargs.json' : kargsFromHeader ? 'legacy-header' : undefined);
      expect(m.features !== undefined).toBe(/features\.json/.test(index));
      expect(m.files.minisoData !== undefined).toBe(/miniso\.dat/.test(index));
      const headers = rawLegacyHeaders(readFileSync(fixture(name)));
      expect(headers.coreiso !== undefined).toBe(/coreiso\+ header/.test(index));
      expect(headers.coreKarg !== undefined).toBe(kargsFromHeader);
    });

    it.each(LIVE_FIXTURES)(
      '%s: Ignition area matches igninfo.json / ignition.img / coreiso+ via xorriso',
      async (name) => {
        const m = await manifestOf(name);
        const files = xorrisoReportLba(fixture(name));
        const igninfo = extractJson<{ file: string; offset?: number; length?: number }>(name, 'coreos/igninfo.json');
        if (igninfo !== undefined) {
          const file = extentOf(files, igninfo.file);
          const offset = igninfo.offset ?? 0;
          expect(m.ignition).toEqual({
            file: igninfo.file,
            offset: file.offset + offset,
            length: igninfo.length ?? file.length - offset,
          });
        } else {
          expect(m.ignition).toEqual({ file: 'images/ignition.img', ...extentOf(files, 'images/ignition.img') });
        }
        const { coreiso } = rawLegacyHeaders(readFileSync(fixture(name)));
        if (coreiso !== undefined) expect({ offset: m.ignition.offset, length: m.ignition.length }).toEqual(coreiso);
      },
    );

    it.each(LIVE_FIXTURES)(
      '%s: kargs areas match kargs.json / coreKarg via xorriso and read back as the defaults',
      async (name) => {
        const m = await manifestOf(name);
        const files = xorrisoReportLba(fixture(name));
        const json = extractJson<KargsJson>(name, 'coreos/kargs.json');
        const { coreKarg } = rawLegacyHeaders(readFileSync(fixture(name)));
        if (json === undefined && coreKarg === undefined) {
          expect(m.kargs).toBeUndefined();
          return;
        }
        const kargs = m.kargs;
        if (kargs === undefined) throw new Error('kargs areas not found');
        if (json !== undefined) {
          expect(kargs.default).toBe(json.default);
          expect(kargs.size).toBe(json.size);
          const want = json.files
            .map((f) => ({
              file: f.path,
              offset: extentOf(files, f.path).offset + f.offset,
              pad: f.pad ?? '#',
              end: f.end ?? '\n',
            }))
            .sort((a, b) => a.offset - b.offset);
          expect(kargs.locations).toEqual(want);
        }
        if (coreKarg !== undefined) {
          // the legacy header names the same areas, and its defaults are /.cmdline
          expect(kargs.locations.map((l) => l.offset).sort((a, b) => a - b)).toEqual(
            [...coreKarg.offsets].sort((a, b) => a - b),
          );
          expect(kargs.size).toBe(coreKarg.size);
          expect(coreKarg.defaultOffset).toBe(extentOf(files, '.cmdline').offset);
          const cmdline = xorrisoExtract(fixture(name), '.cmdline', scratch())?.toString('utf8');
          expect(kargs.default).toBe(cmdline?.replace(/#+$/, '').replace(/\n+$/, '').trim());
        }
        for (const loc of kargs.locations) {
          const file = extentOf(files, loc.file);
          expect(loc.offset).toBeGreaterThanOrEqual(file.offset);
          expect(loc.offset + kargs.size).toBeLessThanOrEqual(file.offset + file.length);
        }
        expect(await readEmbeddedKargs(fixture(name), m)).toBe(kargs.default);
      },
    );

    it.each(LIVE_FIXTURES.filter((n) => n.includes('s390x')))(
      '%s: s390x areas live inside images/cdboot.img',
      async (name) => {
        const m = await manifestOf(name);
        const cdboot = extentOf(xorrisoReportLba(fixture(name)), 'images/cdboot.img');
        const inside = (e: Extent): boolean =>
          e.offset >= cdboot.offset && e.offset + e.length <= cdboot.offset + cdboot.length;
        expect(m.ignition.file).toBe('images/cdboot.img');
        expect(inside(m.ignition)).toBe(true);
        for (const loc of m.kargs?.locations ?? []) {
          expect(loc.file).toBe('images/cdboot.img');
          expect(inside({ offset: loc.offset, length: m.kargs?.size ?? 0 })).toBe(true);
        }
        expect(m.files.insFile).toBeDefined();
        expect(m.files.initrdAddrsize).toBeDefined();
      },
    );

    it.each(LIVE_FIXTURES)('%s: features.json is parsed as written', async (name) => {
      const m = await manifestOf(name);
      expect(m.features).toEqual(extractJson<Record<string, unknown>>(name, 'coreos/features.json'));
    });

    it.each(LIVE_FIXTURES)('%s: boot file extents hold the bytes xorriso extracts', async (name) => {
      const m = await manifestOf(name);
      const image = readFileSync(fixture(name));
      const sources: Record<keyof LiveManifest['files'], string[]> = {
        kernel:
          m.layoutArch === 's390x' ? ['images/kernel.img', 'images/pxeboot/kernel.img'] : ['images/pxeboot/vmlinuz'],
        initrd: ['images/pxeboot/initrd.img'],
        rootfs: ['images/pxeboot/rootfs.img'],
        insFile: ['generic.ins'],
        initrdAddrsize: ['images/initrd.addrsize'],
        minisoData: ['coreos/miniso.dat'],
      };
      for (const [key, candidates] of Object.entries(sources) as [keyof LiveManifest['files'], string[]][]) {
        const extracted = candidates
          .map((c) => xorrisoExtract(fixture(name), c, scratch()))
          .find((b) => b !== undefined);
        const extent = m.files[key];
        if (extracted === undefined) {
          expect(extent, key).toBeUndefined();
          continue;
        }
        if (extent === undefined) throw new Error(`${key} missing from the manifest`);
        expect(image.subarray(extent.offset, extent.offset + extent.length).equals(extracted), key).toBe(true);
      }
    });

    it('2021-09 matches the numbers coreos-installer asserts (src/live/embed.rs tests)', async () => {
      const m = await manifestOf('embed-areas-2021-09.iso');
      expect(m.ignition).toMatchObject({ offset: 102400, length: 262144 });
      expect(m.kargs?.size).toBe(1139);
      expect(m.kargs?.locations.map((l) => l.offset)).toEqual([98126, 371658]);
      expect(m.kargs?.default).toBe(
        'mitigations=auto,nosmt coreos.liveiso=fedora-coreos-34.20210921.dev.0 ignition.firstboot ignition.platform.id=metal',
      );
    });

    describe('legacy fallbacks (patched copies)', () => {
      it('uses the coreKarg header when kargs.json is absent', async () => {
        const file = patched('embed-areas-2021-09.iso', 'nojson', (b) =>
          renameEntry(b, 'KARGS.JSO', 'KARGZ.JSO', 'kargs.json', 'kargz.json'),
        );
        const m = await parseLiveIso(file);
        const original = await manifestOf('embed-areas-2021-09.iso');
        expect(m.kargs?.source).toBe('legacy-header');
        expect(m.kargs?.default).toBe(original.kargs?.default);
        expect(m.kargs?.size).toBe(original.kargs?.size);
        expect(m.kargs?.locations).toEqual(original.kargs?.locations);
      });

      it('has no kargs when neither kargs.json nor a coreKarg header exists', async () => {
        const file = patched('embed-areas-2021-09.iso', 'nokargs', (b) => {
          renameEntry(b, 'KARGS.JSO', 'KARGZ.JSO', 'kargs.json', 'kargz.json');
          b.fill(0, 32768 - 96, 32768 - 88);
        });
        const m = await parseLiveIso(file);
        expect(m.kargs).toBeUndefined();
        await expect(readEmbeddedKargs(file, m)).rejects.toThrow(/no kargs embed areas/);
      });

      it('uses the coreiso+ header when images/ignition.img is absent', async () => {
        const file = patched('embed-areas-2020-09.iso', 'noimg', (b) =>
          renameEntry(b, 'IGNITION.IMG', 'IGNITIOZ.IMG', 'ignition.img', 'ignitioz.img'),
        );
        const m = await parseLiveIso(file);
        const { coreiso } = rawLegacyHeaders(readFileSync(file));
        expect(m.ignition).toEqual({ file: 'images/ignitioz.img', ...coreiso });
      });
    });

    describe('bad input (patched copies)', () => {
      it('rejects kargs areas that disagree', async () => {
        const name = 'embed-areas-2023-07.x86_64.iso';
        const m = await manifestOf(name);
        const second = m.kargs?.locations[1]?.offset ?? 0;
        const file = patched(name, 'disagree', (b) => b.write('X', second, 'latin1'));
        const err = await parseLiveIso(file).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(FormatError);
        expect((err as Error).message).toMatch(/kargs areas disagree/);
        expect((err as Error).message).toContain(file);
        await expect(readEmbeddedKargs(file, m)).rejects.toThrow(/kargs areas disagree/);
      });

      it('rejects a kargs area lying outside its file', async () => {
        const file = patched('embed-areas-2023-07.x86_64.iso', 'outside', (b) =>
          replaceOnce(b, '"offset": 1869', '"offset": 1969'),
        );
        await expect(parseLiveIso(file)).rejects.toThrow(
          /coreos\/kargs\.json .*kargs area 1969\+1139 lies outside isolinux\/isolinux\.cfg/,
        );
      });

      it('rejects default kargs that do not fit in size - 1', async () => {
        const file = patched('embed-areas-2023-07.x86_64.iso', 'small', (b) =>
          replaceOnce(b, '"size": 1139', '"size":  115'),
        );
        await expect(parseLiveIso(file)).rejects.toThrow(/default kargs are 115 bytes, more than the 114 that fit/);
      });

      it('rejects malformed kargs.json', async () => {
        const file = patched('embed-areas-2023-07.x86_64.iso', 'badjson', (b) =>
          replaceOnce(b, '"files": [', '"files": {'),
        );
        await expect(parseLiveIso(file)).rejects.toThrow(/reading coreos\/kargs\.json of .*: malformed JSON/);
      });

      it('rejects an igninfo.json area lying outside its file', async () => {
        const file = patched('embed-areas-2023-07.s390x.iso', 'ignout', (b) =>
          replaceOnce(b, '"length": 262144', '"length": 962144'),
        );
        await expect(parseLiveIso(file)).rejects.toThrow(
          /Ignition area 132096\+962144 lies outside images\/cdboot\.img/,
        );
      });

      it('rejects a truncated image whose volume size was patched to match (extents beyond EOF)', async () => {
        const name = 'embed-areas-2023-07.x86_64.iso';
        const m = await manifestOf(name);
        const miniso = m.files.minisoData;
        if (miniso === undefined) throw new Error('fixture lacks miniso.dat');
        const keep = miniso.offset + 2048; // cut inside coreos/miniso.dat, after every embed area
        const sectors = Math.floor(keep / SECTOR_SIZE);
        const pvd = 16 * SECTOR_SIZE;
        const file = patched(name, 'cut', (b) => {
          b.writeUInt32LE(sectors, pvd + 80);
          b.writeUInt32BE(sectors, pvd + 84);
        });
        truncateSync(file, sectors * SECTOR_SIZE);
        const err = await parseLiveIso(file).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(FormatError);
        expect((err as Error).message).toMatch(
          /locating coreos\/miniso\.dat of .*: extent \d+\+16384 ends beyond the end of the \d+-byte file/,
        );
      });

      it('rejects an image without an embed area', async () => {
        await expect(parseLiveIso(fixture('synthetic.iso'))).rejects.toThrow(/no embed area/);
      });
    });
  },
);

describe.skipIf(unavailable({ xorriso: HAVE_XORRISO }))('parseLiveIso on CoreOS-style ISOs built with xorriso', () => {
  let dir: string;
  const kargs = 'coreos.liveiso=test-0 ignition.firstboot ignition.platform.id=metal';
  const size = 200;
  const area = `${kargs}\n${'#'.repeat(size - kargs.length - 1)}`;
  const grub = `linux /images/pxeboot/vmlinuz ${area}\ninitrd /images/pxeboot/initrd.img\n`;
  const cfgOffset = 'linux /images/pxeboot/vmlinuz '.length;
  const tree = {
    'coreos/igninfo.json': JSON.stringify({ file: 'images/ignition.img' }),
    'coreos/kargs.json': JSON.stringify({
      default: kargs,
      files: [{ path: 'EFI/fedora/grub.cfg', offset: cfgOffset }],
      size,
    }),
    'coreos/features.json': JSON.stringify({ 'installer-config': true }),
    'EFI/fedora/grub.cfg': grub,
    'images/ignition.img': Buffer.alloc(256 * 1024),
    'images/pxeboot/vmlinuz': 'kernel\n',
    'images/pxeboot/initrd.img': 'initrd\n',
    'images/pxeboot/rootfs.img': 'rootfs\n',
  };

  beforeAll(() => {
    dir = makeTempDir('built-live');
    buildFlavors(dir, tree);
    writeTree(path.join(dir, 'plain'), { 'README.TXT': 'not CoreOS\n', 'images/pxeboot/vmlinuz': 'kernel\n' });
    buildIso(path.join(dir, 'plain'), path.join(dir, 'plain.iso'), []);
  });
  afterAll(() => removeDir(dir));

  it.each(Object.keys(XORRISO_FLAVORS))('%s: finds every area and file', async (flavor) => {
    const file = path.join(dir, `${flavor}.iso`);
    const m = await parseLiveIso(file);
    const image = readFileSync(file);
    expect(m.ignition.length).toBe(256 * 1024);
    expect(m.kargs?.default).toBe(kargs);
    expect(m.kargs?.locations).toHaveLength(1);
    const loc = m.kargs?.locations[0];
    expect(image.toString('latin1', loc?.offset, (loc?.offset ?? 0) + size)).toBe(area);
    expect(await readEmbeddedKargs(file, m)).toBe(kargs);
    expect(m.features).toEqual({ 'installer-config': true });
    expect(Object.keys(m.files).sort()).toEqual(['initrd', 'kernel', 'rootfs']);
    const kernel = m.files.kernel;
    expect(image.toString('latin1', kernel?.offset, (kernel?.offset ?? 0) + (kernel?.length ?? 0))).toBe('kernel\n');
  });

  it('rejects an ISO with no embed area', async () => {
    const err = await parseLiveIso(path.join(dir, 'plain.iso')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormatError);
    expect((err as FormatError).message).toMatch(/locating Ignition embed area of .*plain\.iso: no embed area/);
    expect((err as FormatError).context).toMatchObject({ path: path.join(dir, 'plain.iso') });
  });
});
