// layoutArchMismatch (layout-arch.ts) as a table: each configured arch against an s390x and a
// default layout (a mismatch names the Ignition area's file and offset), and against the boot
// loaders an image carries (a mismatch names them, the first one's file and offset).
import { describe, expect, it } from 'vitest';
import { layoutArchMismatch } from './layout-arch.js';
import type { LiveManifest } from './manifest.js';

const manifest = (layoutArch: LiveManifest['layoutArch'], file: string): LiveManifest => ({
  formatVersion: 1,
  size: 1 << 20,
  volumeId: 'v',
  layoutArch,
  ignition: { file, offset: 204800, length: 262144 },
  files: {},
});
const S390X = manifest('s390x', 'images/cdboot.img');
const DEFAULT = manifest('default', 'images/ignition.img');

describe('layoutArchMismatch', () => {
  it.each([
    ['x86_64', DEFAULT, undefined],
    ['aarch64', DEFAULT, undefined],
    ['ppc64le', DEFAULT, undefined],
    ['s390x', S390X, undefined],
    [
      'aarch64',
      S390X,
      'configured as aarch64, but it carries the s390x layout (the Ignition area is images/cdboot.img at byte 204800)',
    ],
    [
      'x86_64',
      S390X,
      'configured as x86_64, but it carries the s390x layout (the Ignition area is images/cdboot.img at byte 204800)',
    ],
    [
      's390x',
      DEFAULT,
      "configured as s390x, but its layout is not s390x's (the Ignition area is images/ignition.img at byte 204800, not inside images/cdboot.img)",
    ],
  ])('%s on a %s layout', (arch, m, message) => {
    const r = layoutArchMismatch(m, arch);
    expect(r?.message).toBe(message);
    if (r) expect(r).toMatchObject({ file: m.ignition.file, offset: 204800 });
  });
});

const withLoaders = (...evidence: NonNullable<LiveManifest['loaderEvidence']>): LiveManifest => ({
  ...DEFAULT,
  loaderEvidence: evidence,
});
const X86 = withLoaders(
  { arch: 'x86_64', file: 'the El Torito boot catalog (a BIOS entry)', offset: 34816 },
  { arch: 'x86_64', file: 'isolinux/isolinux.bin', offset: 53248 },
);
const AARCH64 = withLoaders({ arch: 'aarch64', file: 'the El Torito boot catalog (a UEFI entry only)', offset: 40960 });
const PPC64LE = withLoaders({ arch: 'ppc64le', file: 'ppc/bootinfo.txt', offset: 38912 });

describe('layoutArchMismatch: the boot loaders tell x86_64, aarch64 and ppc64le apart', () => {
  it.each<[string, LiveManifest, string | undefined, string?, number?]>([
    ['x86_64', X86, undefined],
    ['aarch64', AARCH64, undefined],
    ['ppc64le', PPC64LE, undefined],
    ['aarch64', DEFAULT, undefined], // no loader known: not judged by loaders
    [
      'aarch64',
      X86,
      "configured as aarch64, but its boot loaders are x86_64's (the El Torito boot catalog (a BIOS entry) at byte 34816, isolinux/isolinux.bin at byte 53248); none is aarch64's",
      'the El Torito boot catalog (a BIOS entry)',
      34816,
    ],
    [
      'x86_64',
      AARCH64,
      "configured as x86_64, but its boot loaders are aarch64's (the El Torito boot catalog (a UEFI entry only) at byte 40960); none is x86_64's",
      'the El Torito boot catalog (a UEFI entry only)',
      40960,
    ],
    [
      'aarch64',
      PPC64LE,
      "configured as aarch64, but its boot loaders are ppc64le's (ppc/bootinfo.txt at byte 38912); none is aarch64's",
      'ppc/bootinfo.txt',
      38912,
    ],
    [
      'ppc64le',
      X86,
      "configured as ppc64le, but its boot loaders are x86_64's (the El Torito boot catalog (a BIOS entry) at byte 34816, isolinux/isolinux.bin at byte 53248); none is ppc64le's",
      'the El Torito boot catalog (a BIOS entry)',
      34816,
    ],
  ])('%s configured', (arch, m, message, file, offset) => {
    const r = layoutArchMismatch(m, arch);
    expect(r?.message).toBe(message);
    if (r) expect(r).toMatchObject({ file, offset });
  });
});
