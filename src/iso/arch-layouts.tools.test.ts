// The engine on every architecture's live-ISO layout (issue 34), each result read back by an
// independent reader — xorriso (extraction), gzip/xz + cpio (archives) and a byte reader of
// s390x's cdboot.img written here (its be64 initrd offset/size, the NUL-padded kargs area) — never
// by the code that wrote it. Real-parts tier (child processes): needs xorriso, cpio, gzip, xz.
//
// Layouts: fixtures/build-live-iso.sh --arch aarch64|ppc64le|s390x --with-miniso, built once into a
// temp dir (aarch64: EFI-only El Torito, kargs in EFI/fedora/grub.cfg; ppc64le: no El Torito,
// kargs in boot/grub/grub.cfg; s390x: the Ignition area and the kargs inside images/cdboot.img).
// Per arch: the full and minimal ISO spliced and streamed over HTTP by the image service; the
// kargs where that arch keeps them (s390x: kargs.json's NUL pad and end, never '#'); the PXE
// initrd with the Ignition archive appended; s390x's initrd.addrsize; the offline verbs
// `iso ignition embed/show`, `iso kargs modify/show`, `iso extract pxe`, `pxe customize`.
// Does NOT: boot anything (test/e2e/arch-*.test.ts), or check x86_64 (fixtures, src/cli, src/http).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IGNITION, ID, request, startImageService, type ImageService } from '../../test/support/image-service.js';
import { HAVE_CPIO, HAVE_GZIP, HAVE_XORRISO, HAVE_XZ } from '../../test/support/probes.js';
import { unavailable } from '../../test/support/requirements.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { runCaptured } from '../cli/test-support/captured-io.js';

const ARCHES = ['aarch64', 'ppc64le', 's390x'] as const;
type Arch = (typeof ARCHES)[number];
const VOLID = 'fedora-coreos-41.20241109.3.0';
const DEFAULT_KARGS = `mitigations=auto,nosmt coreos.liveiso=${VOLID} ignition.firstboot ignition.platform.id=metal`;
/** What the fake assisted-service says the InfraEnv appends (test/support/fake-assisted-service.ts). */
const INFRAENV_KARGS = 'console=ttyS0 rd.debug';
const CDBOOT_INITRD_START = 66568;
const CDBOOT_INITRD_SIZE = 66576;
const CDBOOT_CMDLINE = 66688;

/** Where each arch keeps its kargs area: the file, as kargs.json names it. */
const KARGS_FILE: Record<Arch, string> = {
  aarch64: 'EFI/fedora/grub.cfg',
  ppc64le: 'boot/grub/grub.cfg',
  s390x: 'images/cdboot.img',
};
const KERNEL_FILE: Record<Arch, string> = {
  aarch64: 'images/pxeboot/vmlinuz',
  ppc64le: 'images/pxeboot/vmlinuz',
  s390x: 'images/pxeboot/kernel.img',
};

// ---------------------------------------------------------------- independent readers
function tool(cmd: string, args: string[], input?: Buffer): Buffer {
  const r = spawnSync(cmd, args, { input, maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr?.toString()}`);
  return r.stdout;
}
/** A file of the ISO, extracted by xorriso (its Rock Ridge tree). */
function xorrisoExtract(iso: string, file: string, dir: string): Buffer {
  const out = path.join(dir, `x-${path.basename(file)}-${Math.random().toString(36).slice(2)}`);
  tool('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', `/${file}`, out]);
  return readFileSync(out);
}
/** Every path xorriso lists. */
function xorrisoFiles(iso: string): string[] {
  const r = spawnSync('xorriso', ['-indev', iso, '-find', '/', '-type', 'f'], { encoding: 'utf8' });
  return [...r.stdout.matchAll(/^'\/(.*)'$/gm)].map((m) => m[1]!);
}
/** `config.ign` of a compressed newc archive (gzip or xz by its magic), by gzip/xz and cpio. */
function configIgnOf(archive: Buffer): string {
  const unpacked = tool(archive[0] === 0x1f ? 'gzip' : 'xz', ['-dc'], archive);
  return tool('cpio', ['-i', '--quiet', '--to-stdout', 'config.ign'], unpacked).toString('utf8');
}
/** The archive at the start of an embed area: up to the area's trailing zeros (gzip and xz ignore them only as padding). */
function archiveIn(area: Buffer): Buffer {
  let end = area.length;
  while (end > 0 && area[end - 1] === 0) end--;
  return area.subarray(0, Math.ceil(end / 4) * 4 + 4);
}
/** cdboot.img's mk-s390image fields, read as big-endian u64s. */
function cdbootFields(cdboot: Buffer): { initrdStart: number; initrdSize: number } {
  return {
    initrdStart: Number(cdboot.readBigUInt64BE(CDBOOT_INITRD_START)),
    initrdSize: Number(cdboot.readBigUInt64BE(CDBOOT_INITRD_SIZE)),
  };
}

const NEEDS = { xorriso: HAVE_XORRISO, cpio: HAVE_CPIO, gzip: HAVE_GZIP, xz: HAVE_XZ };

describe.skipIf(unavailable(NEEDS))(
  'the engine on the aarch64, ppc64le and s390x layouts, read back independently',
  () => {
    let dir: string;
    let running: ImageService;
    const iso: Record<Arch, { full: string; minimal: string }> = {} as never;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'arch-layouts-'));
      for (const arch of ARCHES) {
        const full = path.join(dir, `${arch}.iso`);
        const minimal = path.join(dir, `${arch}-minimal.iso`);
        tool('bash', [
          path.join(PACKAGE_ROOT, 'fixtures', 'build-live-iso.sh'),
          '--arch',
          arch,
          '--with-miniso',
          '--out',
          full,
          '--minimal-out',
          minimal,
        ]);
        iso[arch] = { full, minimal };
      }
      running = await startImageService({
        osImages: ARCHES.map((arch) => ({
          openshift_version: '4.17',
          cpu_architecture: arch,
          url: `file://${iso[arch].full}`,
          version: '417.94.1',
        })),
      });
    }, 300_000);
    afterAll(async () => {
      await running?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** The served file, saved for xorriso. */
    async function served(url: string, name: string): Promise<string> {
      const r = await request(`${running.base}${url}`);
      expect(r.status, `${url}: ${r.body.toString().slice(0, 300)}`).toBe(200);
      const file = path.join(dir, name);
      writeFileSync(file, r.body);
      return file;
    }

    /** The Ignition area of an ISO, as igninfo.json (read by xorriso) places it. */
    function ignitionArea(isoPath: string): { area: Buffer; file: string; offset: number } {
      const info = JSON.parse(xorrisoExtract(isoPath, 'coreos/igninfo.json', dir).toString('utf8')) as {
        file: string;
        offset?: number;
        length?: number;
      };
      const file = xorrisoExtract(isoPath, info.file, dir);
      const offset = info.offset ?? 0;
      return { area: file.subarray(offset, offset + (info.length ?? file.length - offset)), file: info.file, offset };
    }

    /** The kargs area where the arch keeps it, checked byte for byte; returns the kargs. */
    function kargsArea(arch: Arch, isoPath: string, baseIso: string): string {
      const kargsJson = JSON.parse(xorrisoExtract(baseIso, 'coreos/kargs.json', dir).toString('utf8')) as {
        size: number;
        files: { path: string; offset: number; pad: string; end: string }[];
      };
      expect(kargsJson.files.map((f) => f.path)).toEqual([KARGS_FILE[arch]]);
      const [loc] = kargsJson.files;
      const file = xorrisoExtract(isoPath, loc!.path, dir);
      const base = xorrisoExtract(baseIso, loc!.path, dir);
      const area = file.subarray(loc!.offset, loc!.offset + kargsJson.size);
      const kargs = area.toString('latin1', 0, area.indexOf(loc!.end === '\n' ? 0x0a : 0x00));
      const pad = Buffer.alloc(kargsJson.size - kargs.length - 1, loc!.pad);
      expect(area.equals(Buffer.concat([Buffer.from(kargs, 'latin1'), Buffer.from(loc!.end), pad]))).toBe(true);
      if (arch === 's390x') {
        expect(loc).toMatchObject({ pad: '\u0000', end: '\u0000', offset: CDBOOT_CMDLINE });
        expect(area.includes('#'), 'x86 "#" padding in the s390x area').toBe(false);
      }
      // nothing outside the area changed
      expect(file.subarray(0, loc!.offset).equals(base.subarray(0, loc!.offset))).toBe(true);
      if (arch !== 's390x')
        expect(file.subarray(loc!.offset + kargsJson.size).equals(base.subarray(loc!.offset + kargsJson.size))).toBe(
          true,
        );
      return kargs;
    }

    describe.each(ARCHES)('%s', (arch) => {
      it('full ISO: the served Ignition in the arch embed area, the kargs in the arch kargs area', async () => {
        const full = await served(`/byid/${ID}/4.17/${arch}/full.iso`, `${arch}-served-full.iso`);
        const { area, file, offset } = ignitionArea(full);
        expect(file).toBe(arch === 's390x' ? 'images/cdboot.img' : 'images/ignition.img');
        expect(configIgnOf(archiveIn(area))).toBe(IGNITION);
        expect(kargsArea(arch, full, iso[arch].full)).toBe(`${DEFAULT_KARGS} ${INFRAENV_KARGS}`);
        if (arch === 's390x') {
          // The area follows the initrd inside cdboot.img, which the splice left intact.
          const cdboot = xorrisoExtract(full, 'images/cdboot.img', dir);
          const base = xorrisoExtract(iso[arch].full, 'images/cdboot.img', dir);
          const { initrdStart, initrdSize } = cdbootFields(cdboot);
          const initrd = xorrisoExtract(iso[arch].full, 'images/pxeboot/initrd.img', dir);
          expect(initrdStart + initrd.length).toBe(offset);
          expect(initrdStart + initrdSize).toBe(cdboot.length);
          expect(cdboot.subarray(initrdStart, offset).equals(initrd)).toBe(true);
          expect(cdboot.subarray(0, CDBOOT_CMDLINE).equals(base.subarray(0, CDBOOT_CMDLINE))).toBe(true);
        }
      });

      it('minimal ISO: no rootfs, the Ignition spliced, coreos.live.rootfs_url in the kargs instead of coreos.liveiso', async () => {
        const minimal = await served(`/byid/${ID}/4.17/${arch}/minimal.iso`, `${arch}-served-minimal.iso`);
        expect(xorrisoFiles(minimal)).not.toContain('images/pxeboot/rootfs.img');
        expect(xorrisoFiles(minimal)).toContain(KERNEL_FILE[arch]);
        expect(configIgnOf(archiveIn(ignitionArea(minimal).area))).toBe(IGNITION);
        const kargs = kargsArea(arch, minimal, iso[arch].minimal);
        expect(kargs).toMatch(/ coreos\.live\.rootfs_url=\S+\/boot-artifacts\/rootfs\?/);
        expect(kargs).not.toMatch(/coreos\.liveiso=/);
      });

      it('PXE initrd: the base initrd, zeros to a 4-byte boundary, then the Ignition archive', async () => {
        const initrd = (await request(`${running.base}/images/${ID}/pxe-initrd?version=4.17&arch=${arch}`)).body;
        const base = xorrisoExtract(iso[arch].full, 'images/pxeboot/initrd.img', dir);
        const aligned = Math.ceil(base.length / 4) * 4;
        expect(initrd.subarray(0, base.length).equals(base)).toBe(true);
        expect(initrd.subarray(base.length, aligned).every((b) => b === 0)).toBe(true);
        expect(configIgnOf(initrd.subarray(aligned))).toContain('"ignition"');
        if (arch === 's390x') {
          const addrsize = (await request(`${running.base}/images/${ID}/s390x-initrd-addrsize?version=4.17`)).body;
          expect([0, 4, 8, 12].map((o) => addrsize.readUInt32BE(o))).toEqual([0, 0x02000000, 0, initrd.length]);
        }
      });

      it('offline verbs: iso ignition embed/show, iso kargs modify/show, iso extract pxe, pxe customize', async () => {
        const work = path.join(dir, `${arch}-cli.iso`);
        copyFileSync(iso[arch].full, work);
        const config = '{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/arch-test"}]}}\n';
        writeFileSync(path.join(dir, 'config.ign'), config);
        const ok = async (args: string[]): Promise<Buffer> => {
          const r = await runCaptured(args);
          expect(r.code, `bootsmith ${args.join(' ')}: ${r.stderr}`).toBe(0);
          return r.stdout;
        };
        await ok(['iso', 'ignition', 'embed', '-i', path.join(dir, 'config.ign'), work]);
        expect(configIgnOf(archiveIn(ignitionArea(work).area))).toBe(config);
        expect((await ok(['iso', 'ignition', 'show', work])).toString('utf8')).toBe(config);
        await ok(['iso', 'kargs', 'modify', '-a', 'arch.test=1', '-d', 'mitigations=auto,nosmt', work]);
        const expected = `coreos.liveiso=${VOLID} ignition.firstboot ignition.platform.id=metal arch.test=1`;
        expect(kargsArea(arch, work, iso[arch].full)).toBe(expected);
        expect((await ok(['iso', 'kargs', 'show', work])).toString('utf8').trim()).toBe(expected);

        const pxeDir = path.join(dir, `${arch}-pxe`);
        await ok(['iso', 'extract', 'pxe', '-o', pxeDir, work]);
        const stem = path.basename(work, '.iso');
        expect(
          readFileSync(path.join(pxeDir, `${stem}-vmlinuz`)).equals(xorrisoExtract(work, KERNEL_FILE[arch], dir)),
        ).toBe(true);
        const base = xorrisoExtract(work, 'images/pxeboot/initrd.img', dir);
        const initrd = readFileSync(path.join(pxeDir, `${stem}-initrd.img`));
        expect(initrd.subarray(0, base.length).equals(base)).toBe(true);
        expect(configIgnOf(initrd.subarray(Math.ceil(base.length / 4) * 4))).toBe(config);

        const custom = path.join(dir, `${arch}-custom-initrd.img`);
        const baseFile = path.join(dir, `${arch}-base-initrd.img`);
        writeFileSync(baseFile, base);
        await ok([
          'pxe',
          'customize',
          '--dest-device',
          '/dev/vda',
          '--dest-ignition',
          path.join(dir, 'config.ign'),
          '-o',
          custom,
          baseFile,
        ]);
        const customized = readFileSync(custom);
        expect(customized.subarray(0, base.length).equals(base)).toBe(true);
        // the archive follows the base initrd (after zero padding, if any)
        let at = base.length;
        while (customized[at] === 0) at++;
        const appended = tool(customized[at] === 0x1f ? 'gzip' : 'xz', ['-dc'], customized.subarray(at));
        expect(tool('cpio', ['-t', '--quiet'], appended).toString('utf8')).toMatch(
          /installer\.d|coreos-installer|config\.ign/,
        );
      });
    });
  },
);
