// layoutArchMismatch (layout-arch.ts) as a table: each configured arch against an s390x and a
// default layout; a mismatch names the Ignition area's file and offset.
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
