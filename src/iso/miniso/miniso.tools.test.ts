import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FormatError } from '../../errors.js';
import { HAVE_CPIO, HAVE_ISOLINUX } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { parseLiveIso } from '../live-layout.js';
import type { LiveManifest } from '../manifest.js';
import {
  buildMinisoData,
  encodeMinisoData,
  MINISO_PATH,
  packMinimalIso,
  parseMinisoData,
  rebuildMinimalIso,
  type MinisoData,
} from './miniso.js';
import { encodeKargsArea } from '../kargs-codec.js';
import { readEmbeddedKargs } from '../read-embed-areas.js';
import {
  buildIso,
  fixtureIndex,
  fixtureNames,
  FixtureSet,
  HAVE_FIXTURES,
  HAVE_XORRISO,
  HAVE_XZ,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  writeTree,
  xorrisoReportLba,
} from '../test-support/fixtures.js';

const OUR_FULL = path.join(REPO_ROOT, 'fixtures/iso/x86_64-miniso.iso');
const OUR_PLAIN = path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso');
const BUILD_SCRIPT = path.join(REPO_ROOT, 'fixtures/build-live-iso.sh');
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function minisoBytes(iso: string, m: LiveManifest): Buffer {
  const e = m.files.minisoData;
  if (e === undefined) throw new Error(`${iso} has no miniso.dat`);
  return readFileSync(iso).subarray(e.offset, e.offset + e.length);
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe.skipIf(unavailable({ '../shared fixtures': HAVE_FIXTURES, xz: HAVE_XZ, xorriso: HAVE_XORRISO }))(
  'minimal ISOs of the coreos-installer fixtures',
  () => {
    const index = HAVE_FIXTURES ? fixtureIndex() : new Map<string, string[]>();
    const withMiniso = fixtureNames().filter((n) => index.get(n)?.some((l) => l.startsWith('miniso.dat version 1')));
    const without = fixtureNames().filter((n) => n.startsWith('embed-areas-') && !withMiniso.includes(n));
    let fx: FixtureSet;

    beforeAll(() => {
      fx = FixtureSet.create('miniso');
    });
    afterAll(() => fx?.remove());

    it('finds the fixtures INDEX lists with miniso.dat', () => {
      expect(withMiniso.length).toBeGreaterThanOrEqual(7);
    });

    describe.each(withMiniso)('%s', (name) => {
      it('rebuilds the byte-exact minimal ISO: its sha256 is the one miniso.dat records', async () => {
        const full = fx.path(name);
        const manifest = await parseLiveIso(full);
        const data = parseMinisoData(minisoBytes(full, manifest), name);
        const out = path.join(fx.dir, `${name}.minimal`);
        const result = await rebuildMinimalIso(full, manifest, out);
        expect(result.sha256).toBe(data.digest.toString('hex'));
        expect(sha256(out)).toBe(result.sha256);
        expect(result.size).toBe(readFileSync(out).length);
      });

      it('the rebuilt ISO is the live ISO without rootfs.img and miniso.dat, with the same kargs (coreos.liveiso= included)', async () => {
        const full = fx.path(name);
        const out = path.join(fx.dir, `${name}.minimal`);
        const fullManifest = await parseLiveIso(full);
        const m = await parseLiveIso(out);
        expect(m.files.rootfs).toBeUndefined();
        expect(m.files.minisoData).toBeUndefined();
        expect(fullManifest.files.rootfs).toBeDefined();
        expect(m.volumeId).toBe(fullManifest.volumeId);
        expect(m.layoutArch).toBe(fullManifest.layoutArch);
        expect(m.ignition.length).toBe(fullManifest.ignition.length);
        const listed = xorrisoReportLba(out);
        expect([...listed.keys()].some((p) => /rootfs\.img$/i.test(p))).toBe(false);
        expect([...listed.keys()].some((p) => /miniso\.dat$/i.test(p))).toBe(false);
        if (fullManifest.kargs === undefined) {
          expect(m.kargs).toBeUndefined();
        } else {
          expect(m.kargs?.default).toBe(fullManifest.kargs.default);
          expect(m.kargs?.size).toBe(fullManifest.kargs.size);
          const kargs = await readEmbeddedKargs(out, m);
          expect(kargs).toBe(fullManifest.kargs.default);
          expect(kargs).toMatch(/(^| )coreos\.liveiso=\S+/);
        }
      });

      it('our writer reproduces the fixture miniso.dat byte for byte (same app_version)', async () => {
        const full = fx.path(name);
        const raw = minisoBytes(full, await parseLiveIso(full));
        const data = parseMinisoData(raw, name);
        const again = await buildMinisoData(full, path.join(fx.dir, `${name}.minimal`), {
          appVersion: data.appVersion,
        });
        expect(again.toString('hex')).toBe(raw.subarray(0, again.length).toString('hex'));
        expect(raw.subarray(again.length).every((b) => b === 0)).toBe(true);
        expect(encodeMinisoData(data).equals(again)).toBe(true);
      });
    });

    it.each(without)('%s has no miniso.dat: a clear FormatError, nothing written', async (name) => {
      const outDir = path.join(fx.dir, `out-${name}`);
      mkdirSync(outDir);
      const err = await rejection(
        rebuildMinimalIso(fx.path(name), await parseLiveIso(fx.path(name)), path.join(outDir, 'm.iso')),
      );
      expect(err).toBeInstanceOf(FormatError);
      expect(err.message).toMatch(
        /has no coreos\/miniso\.dat: a minimal ISO can only be built from a base image that carries one/,
      );
      expect((err as FormatError).context.reason).toBe('no-miniso-data');
      expect(readdirSync(outDir)).toEqual([]);
    });

    it('fails like coreos-installer on a full ISO whose shared bytes changed (sed coreos.liveiso -> codeos.liveiso)', async () => {
      const name = 'embed-areas-2023-07.x86_64.iso';
      const corrupt = fx.patched(name, 'codeos', (buf) => {
        for (let i = buf.indexOf('coreos.liveiso'); i >= 0; i = buf.indexOf('coreos.liveiso', i + 1))
          buf.write('codeos', i, 'latin1');
      });
      const outDir = path.join(fx.dir, 'out-codeos');
      mkdirSync(outDir);
      const err = await rejection(rebuildMinimalIso(corrupt, await parseLiveIso(corrupt), path.join(outDir, 'm.iso')));
      expect(err).toBeInstanceOf(FormatError);
      expect(err.message).toMatch(/wrong final digest/);
      expect(readdirSync(outDir)).toEqual([]);
    });
  },
);

describe.skipIf(unavailable({ xz: HAVE_XZ }))(
  'minimal ISO of our packed fixture (fixtures/iso/x86_64-miniso.iso)',
  () => {
    let dir = '';
    let manifest: LiveManifest;
    let data: MinisoData;

    beforeAll(async () => {
      dir = makeTempDir('miniso-ours');
      manifest = await parseLiveIso(OUR_FULL);
      data = parseMinisoData(minisoBytes(OUR_FULL, manifest), OUR_FULL);
    });
    afterAll(() => removeDir(dir));

    /** A copy of our fixture changed by `patch`, its manifest, and an empty output directory. */
    async function variant(
      label: string,
      patch: (buf: Buffer) => void,
    ): Promise<{ iso: string; m: LiveManifest; outDir: string }> {
      const buf = readFileSync(OUR_FULL);
      patch(buf);
      const iso = path.join(dir, `${label}.iso`);
      writeFileSync(iso, buf);
      const outDir = path.join(dir, `out-${label}`);
      mkdirSync(outDir);
      return { iso, m: await parseLiveIso(iso), outDir };
    }

    async function expectFailure(label: string, patch: (buf: Buffer) => void, message: RegExp): Promise<void> {
      const { iso, m, outDir } = await variant(label, patch);
      const err = await rejection(rebuildMinimalIso(iso, m, path.join(outDir, 'minimal.iso')));
      expect(err, label).toBeInstanceOf(FormatError);
      expect(err.message, label).toMatch(message);
      expect(readdirSync(outDir), `${label}: nothing left behind`).toEqual([]);
    }

    const minisoAt = (): number => manifest.files.minisoData!.offset;

    it('carries a miniso.dat written by bootsmith', () => {
      expect(manifest.files.minisoData?.length).toBe(16 * 1024);
      expect(data.appVersion).toBe('bootsmith');
      expect(data.xzpacked.subarray(0, 6).toString('latin1')).toBe('\xfd7zXZ\0');
      expect(data.xzpacked[7]).toBe(0x04); // stream flags: CRC64, as coreos-installer writes
    });

    it('rebuilds the minimal ISO, which parses as a live ISO without rootfs.img, and repacks identically', async () => {
      const out = path.join(dir, 'minimal.iso');
      const r = await rebuildMinimalIso(OUR_FULL, manifest, out);
      expect(r.sha256).toBe(data.digest.toString('hex'));
      expect(sha256(out)).toBe(r.sha256);
      const m = await parseLiveIso(out);
      expect(m.files.rootfs).toBeUndefined();
      expect(m.files.minisoData).toBeUndefined();
      expect(m.files.kernel).toEqual(expect.objectContaining({ length: manifest.files.kernel!.length }));
      expect(await readEmbeddedKargs(out, m)).toBe(manifest.kargs!.default);
      const raw = minisoBytes(OUR_FULL, manifest);
      const again = await buildMinisoData(OUR_FULL, out);
      expect(again.equals(raw.subarray(0, again.length))).toBe(true);
    });

    it('overwrites an existing output and leaves no temp files', async () => {
      const outDir = path.join(dir, 'out-overwrite');
      mkdirSync(outDir);
      const out = path.join(outDir, 'minimal.iso');
      writeFileSync(out, 'old');
      await rebuildMinimalIso(OUR_FULL, manifest, out);
      expect(sha256(out)).toBe(data.digest.toString('hex'));
      expect(readdirSync(outDir)).toEqual(['minimal.iso']);
    });

    it('rejects corrupt miniso.dat with a FormatError and writes nothing', async () => {
      const rewrite = (d: MinisoData) => (buf: Buffer) => {
        buf.fill(0, minisoAt(), minisoAt() + 16384);
        encodeMinisoData(d).copy(buf, minisoAt());
      };
      await expectFailure('magic', (buf) => buf.write('m', minisoAt(), 'latin1'), /not a miniso data file/);
      await expectFailure(
        'version',
        (buf) => (buf[minisoAt() + 8] = 2),
        /incompatible miniso data version 2 \(written by "bootsmith"\)/,
      );
      await expectFailure(
        'digest',
        rewrite({ ...data, digest: Buffer.alloc(32, 7) }),
        /wrong final digest: expected sha256 0707/,
      );
      const xz = Buffer.from(data.xzpacked);
      xz[Math.floor(xz.length / 2)]! ^= 0xff;
      await expectFailure(
        'xz',
        rewrite({ ...data, xzpacked: xz }),
        /decompressing the xz-packed data of coreos\/miniso.dat of .*: /,
      );
      await expectFailure(
        'xz-short',
        rewrite({ ...data, xzpacked: data.xzpacked.subarray(0, 40) }),
        /decompressing the xz-packed data/,
      );
      const beyond = data.entries.map((e, i) => (i === data.entries.length - 1 ? { ...e, full: 0x7fff_ffff } : e));
      await expectFailure(
        'beyond',
        rewrite({ ...data, entries: beyond }),
        /reads \d+ bytes at offset \d+ of the full ISO, beyond its 1048576 bytes/,
      );
      await expectFailure(
        'zeroed',
        (buf) => buf.fill(0, minisoAt() + 30, minisoAt() + 16384),
        /reading coreos\/miniso.dat of .*: invalid table|truncated/,
      );
    });

    it('rejects a truncated miniso.dat', async () => {
      const outDir = path.join(dir, 'out-truncated');
      mkdirSync(outDir);
      const m = { ...manifest, files: { ...manifest.files, minisoData: { offset: minisoAt(), length: 30 } } };
      const err = await rejection(rebuildMinimalIso(OUR_FULL, m, path.join(outDir, 'minimal.iso')));
      expect(err).toBeInstanceOf(FormatError);
      expect(err.message).toMatch(/truncated data/);
      expect(readdirSync(outDir)).toEqual([]);
    });

    it('fails the digest check when a shared file of the full ISO changed', async () => {
      const kernel = manifest.files.kernel!;
      await expectFailure('kernel', (buf) => (buf[kernel.offset + 100]! ^= 1), /wrong final digest/);
    });

    it('refuses a full ISO with embedded customizations, like coreos-installer', async () => {
      const ign = manifest.ignition;
      await expectFailure(
        'ignition',
        (buf) => buf.write('x', ign.offset + ign.length - 1, 'latin1'),
        /embedded customizations \(the Ignition embed area in images\/ignition.img is not empty\)/,
      );
      const areas = manifest.kargs!;
      await expectFailure(
        'kargs',
        (buf) => {
          for (const loc of areas.locations)
            encodeKargsArea(`${areas.default} foo=bar`, areas, loc).copy(buf, loc.offset);
        },
        /embedded customizations \(the kernel arguments differ from the defaults/,
      );
    });

    it('refuses a manifest of another file, a missing output directory, and an aborted signal', async () => {
      const outDir = path.join(dir, 'out-misc');
      mkdirSync(outDir);
      await expect(rebuildMinimalIso(OUR_FULL, { ...manifest, size: 1 }, path.join(outDir, 'm.iso'))).rejects.toThrow(
        /manifest describes a 1-byte image/,
      );
      await expect(rebuildMinimalIso(OUR_FULL, manifest, path.join(outDir, 'no/such/dir/m.iso'))).rejects.toThrow(
        /creating .* for the minimal ISO/,
      );
      const ac = new AbortController();
      ac.abort(new Error('shutting down'));
      await expect(
        rebuildMinimalIso(OUR_FULL, manifest, path.join(outDir, 'm.iso'), { signal: ac.signal }),
      ).rejects.toThrow('shutting down');
      expect(readdirSync(outDir)).toEqual([]);
    });

    it('says so clearly when the xz program is missing, and writes nothing', async () => {
      const outDir = path.join(dir, 'out-noxz');
      mkdirSync(outDir);
      const minimal = path.join(dir, 'noxz-minimal.iso');
      await rebuildMinimalIso(OUR_FULL, manifest, minimal);
      const savedPath = process.env.PATH;
      process.env.PATH = outDir;
      try {
        await expect(rebuildMinimalIso(OUR_FULL, manifest, path.join(outDir, 'm.iso'))).rejects.toThrow(
          /the "xz" program was not found on PATH/,
        );
        await expect(buildMinisoData(OUR_FULL, minimal)).rejects.toThrow(/the "xz" program was not found on PATH/);
      } finally {
        process.env.PATH = savedPath;
      }
      expect(readdirSync(outDir)).toEqual([]);
    });

    it('refuses an image without miniso.dat', async () => {
      const err = await rejection(
        rebuildMinimalIso(OUR_PLAIN, await parseLiveIso(OUR_PLAIN), path.join(dir, 'never.iso')),
      );
      expect((err as FormatError).context.reason).toBe('no-miniso-data');
      expect(existsSync(path.join(dir, 'never.iso'))).toBe(false);
    });
  },
);

describe.skipIf(unavailable({ xorriso: HAVE_XORRISO, xz: HAVE_XZ, cpio: HAVE_CPIO, 'isolinux files': HAVE_ISOLINUX }))(
  'round trip: build-live-iso.sh --with-miniso -> pack -> rebuild',
  () => {
    let dir = '';
    beforeAll(() => {
      dir = makeTempDir('miniso-roundtrip');
    });
    afterAll(() => removeDir(dir));

    it.each(['x86_64', 's390x'])(
      '%s: the rebuilt minimal ISO equals the one the script built, byte for byte',
      async (arch) => {
        const full = path.join(dir, `${arch}-full.iso`);
        const minimal = path.join(dir, `${arch}-minimal.iso`);
        const r = spawnSync(
          'bash',
          [BUILD_SCRIPT, '--arch', arch, '--with-miniso', '--out', full, '--minimal-out', minimal],
          { encoding: 'utf8' },
        );
        expect(r.status, r.stderr).toBe(0);
        const out = path.join(dir, `${arch}-rebuilt.iso`);
        const result = await rebuildMinimalIso(full, await parseLiveIso(full), out);
        expect(readFileSync(out).equals(readFileSync(minimal))).toBe(true);
        expect(result.sha256).toBe(sha256(minimal));
      },
    );
  },
);

describe.skipIf(unavailable({ xorriso: HAVE_XORRISO, xz: HAVE_XZ }))(
  'packing refuses ISOs that do not fit together',
  () => {
    let dir = '';
    beforeAll(() => {
      dir = makeTempDir('miniso-pack');
    });
    afterAll(() => removeDir(dir));

    function iso(label: string, files: Record<string, string | Buffer>): string {
      const src = path.join(dir, `${label}-src`);
      writeTree(src, files);
      const out = path.join(dir, `${label}.iso`);
      buildIso(src, out, []);
      return out;
    }

    it('a minimal ISO file missing from the full ISO, or of another length', async () => {
      const full = iso('full', { 'a/one.txt': 'hello', 'b.bin': Buffer.alloc(5000, 1) });
      await expect(buildMinisoData(full, iso('extra', { 'a/one.txt': 'hello', 'c.txt': 'x' }))).rejects.toThrow(
        /file C.TXT of the minimal ISO is missing from the full ISO/,
      );
      await expect(buildMinisoData(full, iso('longer', { 'a/one.txt': 'hello!' }))).rejects.toThrow(
        /file A\/ONE.TXT is 6 bytes in the minimal ISO but 5 in the full ISO/,
      );
      const data = parseMinisoData(await buildMinisoData(full, iso('subset', { 'a/one.txt': 'hello' })), 'subset');
      expect(data.entries).toHaveLength(1);
    });

    it('a minimal ISO that still contains the full ISO miniso.dat (writing it would break the data)', async () => {
      const tree = { [MINISO_PATH]: Buffer.alloc(16384), 'x.txt': 'x' };
      const full = iso('with-dat', tree);
      const before = sha256(full);
      await expect(packMinimalIso(full, iso('with-dat-min', tree))).rejects.toThrow(
        /shares the bytes of the full ISO's coreos\/miniso.dat/,
      );
      expect(sha256(full)).toBe(before);
      const copy = path.join(dir, 'with-dat-copy.iso');
      copyFileSync(full, copy);
      const stats = await packMinimalIso(copy, iso('without-dat', { 'x.txt': 'x' }));
      expect(stats).toMatchObject({ matched: 1, minimalFiles: 1, entries: 1, skipped: 1 });
      await expect(
        packMinimalIso(iso('no-dat', { 'x.txt': 'x' }), iso('no-dat-min', { 'x.txt': 'x' })),
      ).rejects.toThrow(/has no coreos\/miniso.dat file to hold it/);
    });
  },
);
