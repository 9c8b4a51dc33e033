// A local base image named by OS_IMAGES (`/abs/path`, `file://`): a regular file (used in place) or
// a block device holding an ISO (a loop device, a disk an ISO was written to), checked to be there
// and readable, with its size.
//
// A device's image is the ISO 9660 volume written to it: as many bytes as its primary volume
// descriptor says (CoreOS ISOs end there; a loop device of an ISO file holds exactly the file),
// never more than the device holds (sysfs capacity). The loader copies it into the content-keyed
// cache and serves the copy as any cached file (src/images/origins/block-device-origin.ts): a device's
// content can change under a served image without its stat showing anything, which the integrity
// checks of a file used in place rely on.
// Does: stat (and for a device read sector 16 and sysfs) and turn what is wrong into a load error
// that names the path (a missing one is retried slowly: it may be mounted or attached later).
// Does NOT: hash, copy or parse the image.
import { open, stat } from 'node:fs/promises';
import { describeError } from '../../errors.js';
import { sysfsBlockDeviceSize } from '../../iso/block-device.js';
import { SECTOR_SIZE } from '../../iso/directory-record.js';
import { TYPE_PRIMARY, descriptorType, parsePrimaryVolumeDescriptor } from '../../iso/volume-descriptor.js';
import { ImageLoadError } from '../load-failure/load-error.js';

/** ECMA-119 8.4: the primary volume descriptor is the first descriptor, at sector 16. */
const PVD_OFFSET = 16 * SECTOR_SIZE;

export type LocalImage = { kind: 'file'; size: number } | { kind: 'device'; size: number };

/** What the local image at `path` is; throws ImageLoadError when it cannot be used. */
export async function localImage(path: string, label: string): Promise<LocalImage> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw new ImageLoadError(
      'upstream',
      `${label}: cannot read ${path}: ${describeError(err)}`,
      'slow',
      { path },
      { cause: err },
    );
  }
  if (st.isFile()) return { kind: 'file', size: st.size };
  if (!st.isBlockDevice())
    throw new ImageLoadError('upstream', `${label}: ${path} is not a regular file or a block device`, 'slow', { path });
  const volume = await volumeBytes(path, label);
  const capacity = await sysfsBlockDeviceSize(st.rdev);
  if (capacity !== undefined && volume > capacity)
    throw new ImageLoadError(
      'format',
      `${label}: the ISO 9660 volume on ${path} says ${volume} bytes, the device holds ${capacity}`,
      'never',
      { path },
    );
  return { kind: 'device', size: volume };
}

/** The size of the local image at `path` (a file, or the ISO on a device). */
export async function localImageSize(path: string, label: string): Promise<number> {
  return (await localImage(path, label)).size;
}

async function volumeBytes(path: string, label: string): Promise<number> {
  const sector = Buffer.alloc(SECTOR_SIZE);
  try {
    const handle = await open(path, 'r');
    try {
      const { bytesRead } = await handle.read(sector, 0, SECTOR_SIZE, PVD_OFFSET);
      if (bytesRead !== SECTOR_SIZE) throw new Error('the device ends before sector 16');
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new ImageLoadError(
      'upstream',
      `${label}: cannot read ${path}: ${describeError(err)}`,
      'slow',
      { path },
      { cause: err },
    );
  }
  try {
    if (descriptorType(sector) !== TYPE_PRIMARY) throw new Error('sector 16 is not a primary volume descriptor');
    return parsePrimaryVolumeDescriptor(sector).volumeBytes;
  } catch (err) {
    throw new ImageLoadError('format', `${label}: ${path} holds no ISO 9660 image: ${describeError(err)}`, 'never', {
      path,
    });
  }
}
