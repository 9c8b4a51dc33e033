// Test support: a CoreOS-style live ISO large enough that a client which stops reading really
// holds its stream (far more than loopback socket buffers take), with real bytes: its rootfs is
// incompressible pseudo-random data (fixtures/build-live-iso.sh --rootfs-mib), so
// /boot-artifacts/rootfs is as large as the ISO, as on a real RHCOS image.
// Does NOT: assert anything. BIG_ISO_NEEDS is what the script needs, for `unavailable()`.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../package-root.js';
import { HAVE_CPIO, HAVE_GZIP, HAVE_ISOLINUX, HAVE_OPENSSL, HAVE_XORRISO } from '../../../../test/support/probes.js';

export const BIG_ISO_NEEDS = {
  xorriso: HAVE_XORRISO,
  cpio: HAVE_CPIO,
  gzip: HAVE_GZIP,
  openssl: HAVE_OPENSSL,
  'isolinux files (apt-get install isolinux syslinux-common)': HAVE_ISOLINUX,
};

/** The ISO was 47 MB; its rootfs this many MiB makes one of that size. */
export const BIG_ISO_ROOTFS_MIB = 48;

/** Builds the ISO as `dir/big.iso` and returns its path. */
export function buildBigIso(dir: string, rootfsMib = BIG_ISO_ROOTFS_MIB): string {
  const out = path.join(dir, 'big.iso');
  execFileSync(
    'bash',
    [path.join(PACKAGE_ROOT, 'fixtures', 'build-live-iso.sh'), '--rootfs-mib', String(rootfsMib), '--out', out],
    { stdio: 'ignore', timeout: 120_000 },
  );
  return out;
}
