// Bad per-architecture layouts at ingest (issue 34): each is refused by the parser or the image
// loader with an error naming the image, the file and the byte offset, and only that image is
// left unserved; the others of the same service keep serving. Real-parts tier: the layouts are
// built by fixtures/build-live-iso.sh (xorriso) and broken byte by byte here.
//   - an s390x cdboot.img whose initrd offset (be64 at 66568) points outside the file
//   - an ISO configured as aarch64 that carries the s390x layout (and the reverse)
//   - a ppc64le ISO without boot/grub/grub.cfg, which its kargs.json names
//   - a kargs area smaller than the kargs it must hold (kargs.json's size)
// Does NOT: check good layouts (arch-layouts.tools.test.ts).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID, request, startImageService, type ImageService } from '../../test/support/image-service.js';
import { HAVE_CPIO, HAVE_XORRISO } from '../../test/support/probes.js';
import { unavailable } from '../../test/support/requirements.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { parseLiveIso } from './live-layout.js';

const BUILD = path.join(PACKAGE_ROOT, 'fixtures', 'build-live-iso.sh');
const CDBOOT_INITRD_START = 66568;

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}
/** Absolute byte offset of a file in the ISO, as xorriso reports its first block. */
function lba(iso: string, file: string): number {
  const out = run('xorriso', ['-indev', iso, '-find', `/${file}`, '-exec', 'report_lba']);
  const m = /File data lba:\s+\d+\s*,\s*(\d+)\s*,/.exec(out);
  if (!m) throw new Error(`no extent of ${file} in ${iso}: ${out}`);
  return Number(m[1]) * 2048;
}

describe.skipIf(unavailable({ xorriso: HAVE_XORRISO, cpio: HAVE_CPIO }))('bad per-arch layouts at ingest', () => {
  let dir: string;
  let running: ImageService | undefined;
  const iso: Record<string, string> = {};

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'arch-bad-'));
    for (const arch of ['aarch64', 'ppc64le', 's390x']) {
      iso[arch] = path.join(dir, `${arch}.iso`);
      run('bash', [BUILD, '--arch', arch, '--out', iso[arch]!]);
    }
    // s390x: the initrd offset in cdboot.img points past the end of the file
    iso.s390xOutside = path.join(dir, 's390x-outside.iso');
    copyFileSync(iso.s390x!, iso.s390xOutside);
    const bytes = readFileSync(iso.s390xOutside);
    bytes.writeBigUInt64BE(1n << 40n, lba(iso.s390x!, 'images/cdboot.img') + CDBOOT_INITRD_START);
    writeFileSync(iso.s390xOutside, bytes);
    // ppc64le without boot/grub/grub.cfg (kargs.json still names it)
    const tree = path.join(dir, 'ppc-tree');
    run('bash', [BUILD, '--arch', 'ppc64le', '--out', path.join(dir, 'unused.iso'), '--keep-tree', tree]);
    rmSync(path.join(tree, 'boot', 'grub', 'grub.cfg'));
    iso.ppcNoGrub = path.join(dir, 'ppc64le-no-grub-cfg.iso');
    run('xorriso', [
      '-as',
      'mkisofs',
      '-quiet',
      '-V',
      'nogrubcfg',
      '-R',
      '-J',
      '-sysid',
      'PPC',
      '-o',
      iso.ppcNoGrub,
      tree,
    ]);
    // aarch64 whose kargs area (kargs.json's size) is smaller than its default kargs
    iso.aarch64Small = path.join(dir, 'aarch64-small-kargs.iso');
    const small = readFileSync(iso.aarch64!);
    const at = small.indexOf('"size": 1137');
    expect(at).toBeGreaterThan(0);
    small.write('"size":   64', at, 'latin1');
    writeFileSync(iso.aarch64Small, small);
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the parser names the image, cdboot.img and byte 66568 for an initrd offset outside it', async () => {
    await expect(parseLiveIso(iso.s390xOutside!)).rejects.toThrow(
      new RegExp(
        `s390x-outside\\.iso: at byte ${CDBOOT_INITRD_START} of images/cdboot\\.img: the initrd offset \\d+ points outside the file`,
      ),
    );
    await expect(parseLiveIso(iso.s390x!)).resolves.toMatchObject({ layoutArch: 's390x' });
  });

  it('the parser refuses a ppc64le ISO without boot/grub/grub.cfg and a kargs area smaller than its kargs', async () => {
    await expect(parseLiveIso(iso.ppcNoGrub!)).rejects.toThrow(/boot\/grub\/grub\.cfg/);
    await expect(parseLiveIso(iso.aarch64Small!)).rejects.toThrow(
      /aarch64-small-kargs\.iso.*EFI\/fedora\/grub\.cfg|kargs/,
    );
  });

  it('at ingest each bad image alone is refused, naming itself, the file and the offset; the good ones are served', async () => {
    const entry = (version: string, arch: string, file: string) => ({
      openshift_version: version,
      cpu_architecture: arch,
      url: `file://${file}`,
      version: `${version.replace('.', '')}.94.1`,
    });
    running = await startImageService({
      osImages: [
        entry('4.17', 'aarch64', iso.aarch64!),
        entry('4.17', 'ppc64le', iso.ppc64le!),
        entry('4.17', 's390x', iso.s390x!),
        entry('4.18', 's390x', iso.s390xOutside!),
        entry('4.18', 'aarch64', iso.s390x!), // claims aarch64, carries s390x
        entry('4.19', 's390x', iso.aarch64!), // claims s390x, carries another layout
        entry('4.18', 'ppc64le', iso.ppcNoGrub!),
        entry('4.19', 'aarch64', iso.aarch64Small!),
      ],
    });
    for (const arch of ['aarch64', 'ppc64le', 's390x'])
      expect((await request(`${running.base}/byid/${ID}/4.17/${arch}/full.iso`, { method: 'HEAD' })).status).toBe(200);
    const health = (await request(`${running.base}/health`)).body.toString('utf8');
    for (const [version, arch, why] of [
      ['4.18', 's390x', /s390x-outside\.iso: at byte 66568 of images\/cdboot\.img: the initrd offset/],
      [
        '4.18',
        'aarch64',
        /configured as aarch64, but it carries the s390x layout \(the Ignition area is images\/cdboot\.img at byte \d+\)/,
      ],
      [
        '4.19',
        's390x',
        /configured as s390x, but its layout is not s390x's \(the Ignition area is images\/ignition\.img at byte \d+/,
      ],
      ['4.18', 'ppc64le', /boot\/grub\/grub\.cfg/],
      ['4.19', 'aarch64', /kargs/],
    ] as const) {
      const r = await request(`${running.base}/byid/${ID}/${version}/${arch}/full.iso`, { method: 'HEAD' });
      expect(r.status, `${version} ${arch} must not be served`).not.toBe(200);
      expect(r.status).toBeLessThan(500 + 4); // 503 (image failed) or a 4xx, never a 500
      expect(r.status).not.toBe(500);
      expect(health, `${version} ${arch}: the reason in /health`).toMatch(why);
    }
  }, 120_000);
});
