// Block devices holding an ISO image: a device's stat() says 0 bytes, so its capacity comes from
// sysfs (/sys/dev/block/MAJ:MIN/size, in 512-byte sectors whatever the device's logical block
// size). Shared by the offline verbs (src/cli/input/image-size.ts) and the image store's local
// sources (src/images/fetch/local-image.ts).
// Does: dev_t → major:minor, the sysfs capacity. Does NOT: open the device or parse the ISO.
import { readFile } from 'node:fs/promises';

/** sysfs reports block device sizes in units of this many bytes (include/linux/types.h: sector_t). */
export const SYSFS_SECTOR_BYTES = 512;

/** Linux's dev_t → major:minor (glibc's gnu_dev_major/minor). */
export function deviceNumbers(rdev: number): { major: number; minor: number } {
  const high = Math.floor(rdev / 2 ** 32);
  const low = rdev >>> 0;
  const major = ((low >>> 8) & 0xfff) | ((high & 0xfffff000) >>> 0);
  const minor = (low & 0xff) | ((low >>> 12) & 0xffffff00);
  return { major, minor };
}

/** The size sysfs gives for a block device, or undefined when sysfs does not say. */
export async function sysfsBlockDeviceSize(rdev: number, sysRoot = '/sys'): Promise<number | undefined> {
  const { major, minor } = deviceNumbers(rdev);
  let text: string;
  try {
    text = await readFile(`${sysRoot}/dev/block/${major}:${minor}/size`, 'utf8');
  } catch {
    return undefined;
  }
  const sectors = Number(text.trim());
  return Number.isSafeInteger(sectors) && sectors > 0 ? sectors * SYSFS_SECTOR_BYTES : undefined;
}
