// The size of an image the offline verbs edit, for regular files and block devices alike: a block
// device's stat() says 0 bytes, so its size comes from /sys/dev/block/MAJ:MIN/size (512-byte
// sectors, whatever the device's logical block size), or, where sysfs is not mounted, from the
// ISO 9660 primary volume descriptor's volume space size (the image written to the device).
// Does: size lookups and a positional reader that reports that size. Does NOT: write anything.
import type { FileHandle } from 'node:fs/promises';

import type { PositionalReader } from '../../iso/read-range.js';
import { CliError } from '../verb.js';
import { sysfsBlockDeviceSize } from '../../iso/block-device.js';

export { SYSFS_SECTOR_BYTES, deviceNumbers, sysfsBlockDeviceSize } from '../../iso/block-device.js';

/** The ISO 9660 primary volume descriptor: sector 16 of 2048 bytes (ECMA-119 8.4). */
const PVD_OFFSET = 16 * 2048;
/** Where the PVD holds the volume space size and the logical block size (both-endian fields). */
const VOLUME_SPACE_SIZE_AT = 80;
const LOGICAL_BLOCK_SIZE_AT = 128;

/** The byte size an ISO 9660 image says it has (volume space size × logical block size). */
export async function iso9660VolumeSize(fh: Pick<FileHandle, 'read'>, name: string): Promise<number> {
  const pvd = Buffer.alloc(2048);
  const { bytesRead } = await fh.read(pvd, 0, pvd.length, PVD_OFFSET);
  if (bytesRead !== pvd.length || pvd[0] !== 1 || pvd.toString('latin1', 1, 6) !== 'CD001')
    throw new CliError(name, 'no ISO 9660 primary volume descriptor at sector 16');
  const blocks = pvd.readUInt32LE(VOLUME_SPACE_SIZE_AT);
  const blockSize = pvd.readUInt16LE(LOGICAL_BLOCK_SIZE_AT);
  if (blocks === 0 || blockSize === 0) throw new CliError(name, 'the ISO 9660 volume size is zero');
  return blocks * blockSize;
}

/** The size of the image open in `fh`: a regular file's length or a block device's capacity. */
export async function imageSize(fh: FileHandle, name: string): Promise<number> {
  const st = await fh.stat();
  if (st.isFile()) return st.size;
  if (!st.isBlockDevice()) throw new CliError(name, 'not a regular file or block device');
  return (await sysfsBlockDeviceSize(st.rdev)) ?? (await iso9660VolumeSize(fh, name));
}

/** `fh` as the ISO parser's reader, reporting `size` (stat() of a block device says 0). */
export function sizedReader(fh: FileHandle, size: number): PositionalReader {
  return {
    read: (buffer, offset, length, position) => fh.read(buffer, offset, length, position),
    stat: () => Promise.resolve({ size }),
    close: () => fh.close(),
  };
}
