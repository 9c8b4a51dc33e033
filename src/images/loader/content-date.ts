// The Last-Modified date of a cached base image, the same on every replica: the ISO's own
// volume date (src/iso/volume-date.ts), never the cache file's mtime (which is the time this
// replica downloaded it). An ISO without a volume date gets the Unix epoch: stable, if old.
// Does NOT: open the image for serving (BaseFile) or read anything but its volume descriptors.
import { readVolumeDate } from '../../iso/volume-date.js';

/** Used when the ISO carries no volume date: any fixed date keeps replicas identical. */
const NO_VOLUME_DATE = new Date(0);

export async function contentDate(isoPath: string): Promise<Date> {
  return (await readVolumeDate(isoPath)) ?? NO_VOLUME_DATE;
}
