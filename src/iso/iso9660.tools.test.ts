import { readFileSync, truncateSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FormatError } from '../errors.js';
import { unavailable } from '../../test/support/requirements.js';
import { IsoFs, openIsoFs, SECTOR_SIZE, withIsoFs } from './iso9660.js';
import {
  buildFlavors,
  buildIso,
  findAll,
  FixtureSet,
  fixtureNames,
  HAVE_FIXTURES,
  HAVE_XORRISO,
  HAVE_XZ,
  makeTempDir,
  removeDir,
  writeTree,
  xorrisoReportLba,
  xorrisoVolumeId,
  XORRISO_FLAVORS,
} from './test-support/fixtures.js';

async function walkPaths(iso: IsoFs): Promise<string[]> {
  const out: string[] = [];
  for await (const { path: p } of iso.walk()) out.push(p);
  return out;
}

describe.skipIf(unavailable({ '../shared fixtures': HAVE_FIXTURES, xz: HAVE_XZ }))(
  'IsoFs on the coreos-installer fixtures',
  () => {
    let fx: FixtureSet;
    const fixture = (name: string): string => fx.path(name);

    beforeAll(() => {
      fx = FixtureSet.create('fs');
    });
    afterAll(() => fx.remove());

    describe('synthetic.iso (coreos-installer src/iso9660.rs test vectors)', () => {
      it('reads the primary volume descriptor', async () => {
        await withIsoFs(fixture('synthetic.iso'), async (iso) => {
          expect(iso.primary.systemId).toBe('system-ID-string');
          expect(iso.volumeId).toBe('volume-ID-string');
          expect(iso.primary.volumeBytes).toBe(338 * SECTOR_SIZE);
          expect(iso.root().isDirectory).toBe(true);
          expect(iso.hasRockRidge).toBe(false);
        });
      });

      it('walks the tree with ISO 9660 names', async () => {
        const expected = [
          'CONTENT',
          'CONTENT/DIR',
          'CONTENT/DIR/SUBFILE.TXT',
          'CONTENT/FILE.TXT',
          'LARGEDIR',
          'NAMES',
          `NAMES/!"%&'()*.+,-`,
          'NAMES/:<=>?',
          'NAMES/ABC',
          'NAMES/ABC.D',
          'NAMES/ABC.DE',
          'NAMES/ABC.DEF',
          'NAMES/ABCDE000',
          'NAMES/ABCDEFGH',
          'NAMES/ABCDEFGH.I',
          'NAMES/ABCDEFGH.IJ',
          'NAMES/ABCDEFGH.IJK',
          'NAMES/ABCDEFGH.M',
          'NAMES/ABCDEFGH.MN',
          'NAMES/ABCDEFGH.MNO',
          'REALLY',
          'REALLY/VERY',
          'REALLY/VERY/DEEPLY',
          'REALLY/VERY/DEEPLY/NESTED',
          'REALLY/VERY/DEEPLY/NESTED/FILE.TXT',
        ];
        for (let i = 1; i <= 150; i++) expected.push(`LARGEDIR/${i}.DAT`);
        await withIsoFs(fixture('synthetic.iso'), async (iso) => {
          expect((await walkPaths(iso)).sort()).toEqual(expected.sort());
        });
      });

      it('resolves paths like coreos-installer, case-insensitively', async () => {
        await withIsoFs(fixture('synthetic.iso'), async (iso) => {
          expect(await iso.lookup('/')).toEqual(iso.root());
          expect((await iso.lookup('./CONTENT'))?.isDirectory).toBe(true);
          expect((await iso.lookup('CONTENT/FILE.TXT'))?.isDirectory).toBe(false);
          expect(await iso.lookup('content/file.txt')).toEqual(await iso.lookup('CONTENT/FILE.TXT'));
          expect(await iso.lookup('/a/../CONTENT/./DIR/SUBFILE.TXT')).toEqual(
            await iso.lookup('CONTENT/DIR/SUBFILE.TXT'),
          );
          expect(await iso.lookup('MISSING')).toBeUndefined();
          expect(await iso.lookup('MISSING/STUFF.TXT')).toBeUndefined();
          expect(await iso.lookup('CONTENT/FILE.TXT/STUFF.TXT')).toBeUndefined();
          await expect(iso.lookupFile('CONTENT')).rejects.toThrow(FormatError);
        });
      });

      it('lists a directory and reads a nested file', async () => {
        await withIsoFs(fixture('synthetic.iso'), async (iso) => {
          expect((await iso.list('CONTENT')).map((e) => e.name)).toEqual(['DIR', 'FILE.TXT']);
          const file = await iso.lookupFile('REALLY/VERY/DEEPLY/NESTED/FILE.TXT');
          if (file === undefined) throw new Error('nested file not found');
          expect((await iso.readFile(file, 1024)).toString()).toBe('foo\n');
          await expect(iso.readFile(file, 2)).rejects.toThrow(/more than the 2 expected/);
        });
      });
    });

    describe.skipIf(unavailable({ xorriso: HAVE_XORRISO }))('every fixture, cross-checked with xorriso', () => {
      it.each(fixtureNames())('%s: every file xorriso reports resolves to the same extent', async (name) => {
        const iso = await openIsoFs(fixture(name));
        try {
          expect(iso.volumeId).toBe(xorrisoVolumeId(fixture(name)));
          const reported = xorrisoReportLba(fixture(name));
          expect(reported.size).toBeGreaterThan(0);
          const walked = new Set(await walkPaths(iso));
          for (const [isoPath, { lba, size }] of reported) {
            expect(walked.has(isoPath), isoPath).toBe(true);
            const entry = await iso.lookupFile(isoPath);
            expect(entry, isoPath).toMatchObject({ offset: lba * SECTOR_SIZE, length: size, isDirectory: false });
          }
        } finally {
          await iso.close();
        }
      });
    });

    it.each(fixtureNames().filter((n) => n.startsWith('embed-areas-2023')))(
      '%s: friendly paths and 8.3 paths name the same entries',
      async (name) => {
        await withIsoFs(fixture(name), async (iso) => {
          const pairs: [string, string][] = [
            ['coreos/igninfo.json', 'COREOS/IGNINFO.JSO'],
            ['coreos/features.json', 'COREOS/FEATURES.JSO'],
            ['coreos/miniso.dat', 'COREOS/MINISO.DAT'],
            ['images/pxeboot/initrd.img', 'IMAGES/PXEBOOT/INITRD.IMG'],
          ];
          for (const [friendly, short] of pairs) {
            const entry = await iso.lookup(friendly);
            expect(entry, friendly).toBeDefined();
            expect(await iso.lookup(short)).toEqual(entry);
          }
          const coreos = await iso.list('coreos');
          const igninfo = coreos.find((e) => e.name === 'igninfo.json');
          expect(igninfo).toMatchObject({ isoName: 'IGNINFO.JSO', rockRidgeName: 'igninfo.json', isDirectory: false });
        });
      },
    );

    it('rejects a truncated copy of a fixture', async () => {
      const copy = path.join(fx.dir, 'truncated.iso');
      copyFileSync(fixture('embed-areas-2023-07.x86_64.iso'), copy);
      truncateSync(copy, 300 * 1024);
      await expect(openIsoFs(copy)).rejects.toThrow(FormatError);
      await expect(openIsoFs(copy)).rejects.toThrow(/incomplete.*truncated/);
    });
  },
);

describe('IsoFs on malformed input', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('bad');
  });
  afterAll(() => removeDir(dir));

  it('rejects random bytes as not an ISO', async () => {
    const file = path.join(dir, 'random.iso');
    const bytes = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    writeFileSync(file, bytes);
    await expect(openIsoFs(file)).rejects.toThrow(FormatError);
    await expect(openIsoFs(file)).rejects.toThrow(
      /reading primary volume descriptor of .*random\.iso: not an ISO 9660 image/,
    );
  });

  it('rejects a file too small to hold volume descriptors', async () => {
    const file = path.join(dir, 'tiny.iso');
    writeFileSync(file, Buffer.alloc(4096));
    await expect(openIsoFs(file)).rejects.toThrow(/not an ISO 9660 image \(file is 4096 bytes/);
  });

  it('rejects a descriptor set without a primary volume descriptor', async () => {
    const file = path.join(dir, 'nopvd.iso');
    const bytes = Buffer.alloc(20 * SECTOR_SIZE);
    const terminator = 16 * SECTOR_SIZE;
    bytes[terminator] = 255;
    bytes.write('CD001', terminator + 1, 'latin1');
    bytes[terminator + 6] = 1;
    writeFileSync(file, bytes);
    await expect(openIsoFs(file)).rejects.toThrow(/no primary volume descriptor found/);
  });

  it('rejects a descriptor set without a terminator', async () => {
    const file = path.join(dir, 'noterm.iso');
    writeFileSync(file, Buffer.alloc(17 * SECTOR_SIZE));
    const bytes = readFileSync(file);
    bytes.write('\x02CD001\x01', 16 * SECTOR_SIZE, 'latin1');
    writeFileSync(file, bytes);
    await expect(openIsoFs(file)).rejects.toThrow(/file ends before the volume descriptor set terminator/);
  });

  it('reports a missing file as a FormatError naming it', async () => {
    await expect(openIsoFs(path.join(dir, 'absent.iso'))).rejects.toThrow(/opening ISO image .*absent\.iso/);
  });
});

describe.skipIf(unavailable({ xorriso: HAVE_XORRISO }))('IsoFs on ISOs built with xorriso', () => {
  let dir: string;
  const tree = {
    'coreos/igninfo.json': '{"file":"images/ignition.img"}\n',
    'images/ignition.img': Buffer.alloc(8192),
    'images/pxeboot/initrd.img': 'initrd\n',
    'images/initrd.addrsize': Buffer.alloc(16, 1),
    'generic.ins': 'ins\n',
  };
  /** The names an ISO 9660 level-1 writer gives the tree's long names. */
  const SHORT_NAMES: Record<string, string> = {
    'coreos/igninfo.json': 'COREOS/IGNINFO.JSO',
    'images/ignition.img': 'IMAGES/IGNITION.IMG',
    'images/pxeboot/initrd.img': 'IMAGES/PXEBOOT/INITRD.IMG',
    'images/initrd.addrsize': 'IMAGES/INITRD.ADD',
    'generic.ins': 'GENERIC.INS',
  };
  beforeAll(() => {
    dir = makeTempDir('built');
    buildFlavors(dir, tree);
  });
  afterAll(() => removeDir(dir));

  it.each(Object.keys(XORRISO_FLAVORS))('%s: friendly paths resolve to the files xorriso wrote', async (flavor) => {
    const file = path.join(dir, `${flavor}.iso`);
    const reported = xorrisoReportLba(file);
    await withIsoFs(file, async (iso) => {
      expect(iso.hasRockRidge).toBe(flavor === 'rockridge');
      for (const isoPath of Object.keys(tree)) {
        const entry = await iso.lookupFile(isoPath);
        const want =
          reported.get(flavor === 'level1' ? (SHORT_NAMES[isoPath] ?? '') : isoPath.toUpperCase()) ??
          reported.get(isoPath);
        expect(want, `${isoPath} in xorriso report`).toBeDefined();
        expect(entry, isoPath).toMatchObject({ offset: (want?.lba ?? -1) * SECTOR_SIZE, length: want?.size });
      }
      expect(await iso.lookup('IMAGES/INITRD.ADD')).toEqual(await iso.lookup('images/initrd.addrsize'));
    });
  });

  it('lists Rock Ridge names when present and ISO names otherwise', async () => {
    const rr = await withIsoFs(path.join(dir, 'rockridge.iso'), (iso) => iso.list('images'));
    expect(rr.map((e) => e.name).sort()).toEqual(['ignition.img', 'initrd.addrsize', 'pxeboot']);
    expect(rr.find((e) => e.name === 'pxeboot')?.isDirectory).toBe(true);
    const l1 = await withIsoFs(path.join(dir, 'level1.iso'), (iso) => iso.list('images'));
    expect(l1.map((e) => e.name).sort()).toEqual(['IGNITION.IMG', 'INITRD.ADD', 'PXEBOOT']);
    expect(l1.every((e) => e.rockRidgeName === undefined)).toBe(true);
  });

  describe('multi-extent files', () => {
    let base: Buffer;
    let partA: number;
    let partB: number;

    beforeAll(() => {
      writeTree(path.join(dir, 'multi'), {
        'parta.bin': Buffer.alloc(2 * SECTOR_SIZE, 0x61),
        'partb.bin': Buffer.alloc(100, 0x62),
      });
      buildIso(path.join(dir, 'multi'), path.join(dir, 'multi.iso'), XORRISO_FLAVORS.level1 ?? []);
      base = readFileSync(path.join(dir, 'multi.iso'));
      const [a] = findAll(base, 'PARTA.BIN;1');
      const [b] = findAll(base, 'PARTB.BIN;1');
      if (a === undefined || b === undefined) throw new Error('built ISO lacks the part files');
      partA = a - 33; // identifier starts 33 bytes into the record
      partB = b - 33;
    });

    function variant(name: string, patch: (buf: Buffer) => void): string {
      const buf = Buffer.from(base);
      patch(buf);
      const file = path.join(dir, name);
      writeFileSync(file, buf);
      return file;
    }

    const markFirstAsContinued = (buf: Buffer): void => {
      buf[partA + 25] = (buf[partA + 25] ?? 0) | 0x80;
      buf.write('PARTA', partB + 33, 'latin1');
    };

    it('merges contiguous extents into one entry', async () => {
      const file = variant('multi-ok.iso', markFirstAsContinued);
      const first = base.readUInt32LE(partA + 2) * SECTOR_SIZE;
      expect(base.readUInt32LE(partB + 2) * SECTOR_SIZE).toBe(first + 2 * SECTOR_SIZE); // xorriso packs them
      const entry = await withIsoFs(file, (iso) => iso.lookupFile('parta.bin'));
      expect(entry).toMatchObject({ offset: first, length: 2 * SECTOR_SIZE + 100 });
      const all = await withIsoFs(file, (iso) => iso.list('/'));
      expect(all.map((e) => e.isoName)).toEqual(['PARTA.BIN']);
    });

    it('rejects non-contiguous extents', async () => {
      const file = variant('multi-gap.iso', (buf) => {
        markFirstAsContinued(buf);
        buf.writeUInt32LE(buf.readUInt32LE(partB + 2) + 1, partB + 2);
      });
      await expect(withIsoFs(file, (iso) => iso.list('/'))).rejects.toThrow(
        /non-contiguous extents, which is not supported/,
      );
    });

    it('rejects a multi-extent file without its next extent', async () => {
      const file = variant('multi-broken.iso', (buf) => {
        buf[partA + 25] = (buf[partA + 25] ?? 0) | 0x80;
      });
      await expect(withIsoFs(file, (iso) => iso.list('/'))).rejects.toThrow(FormatError);
    });
  });
});
