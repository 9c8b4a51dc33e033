// s390x's images/cdboot.img (s390-tools' mk-s390image layout): the kernel's parameter area holds
// the initrd's offset in the file (big-endian u64 at byte 66568) and the length the kernel loads
// from there (u64 at 66576: the initrd plus the Ignition area after it). The Ignition area must lie
// inside that range, or the kernel never sees the config bootsmith writes there.
//
// Does: read those two fields and check them against the file and the Ignition area; a problem is
// a FormatError naming the image, the file and the byte offset. Does NOT: find cdboot.img (live-layout.ts)
// or read the kargs area at 66688 (kargs-areas.ts).
import { FormatError } from '../errors.js';
import type { Extent, IgnitionArea } from './manifest.js';

export const CDBOOT_FILE = 'images/cdboot.img';
/** Byte offsets in cdboot.img of the be64 initrd offset and length. */
export const CDBOOT_INITRD_START = 66568;
export const CDBOOT_INITRD_SIZE = 66576;

/** Reads `length` bytes at absolute `offset` of the image. */
type ReadAt = (offset: number, length: number, what: string) => Promise<Buffer>;

/** Checks cdboot.img (at `cdboot` in the image `path`) against the Ignition area inside it. */
export async function checkCdboot(path: string, cdboot: Extent, ignition: IgnitionArea, readAt: ReadAt): Promise<void> {
  const fail = (at: number, why: string): never => {
    throw new FormatError(`checking ${CDBOOT_FILE} of ${path}: at byte ${at} of ${CDBOOT_FILE}: ${why}`, {
      path,
      file: CDBOOT_FILE,
      offset: at,
    });
  };
  if (cdboot.length < CDBOOT_INITRD_SIZE + 8)
    fail(CDBOOT_INITRD_START, `the file is ${cdboot.length} bytes, too short for a kernel parameter area`);
  const fields = await readAt(cdboot.offset + CDBOOT_INITRD_START, 16, `${CDBOOT_FILE} initrd offset and size`);
  const start = fields.readBigUInt64BE(0);
  const size = fields.readBigUInt64BE(8);
  if (start === 0n || start >= BigInt(cdboot.length))
    fail(CDBOOT_INITRD_START, `the initrd offset ${start} points outside the file (${cdboot.length} bytes)`);
  if (start + size > BigInt(cdboot.length))
    fail(
      CDBOOT_INITRD_SIZE,
      `the initrd (${size} bytes from ${start}) runs past the end of the file (${cdboot.length} bytes)`,
    );
  const areaStart = BigInt(ignition.offset - cdboot.offset);
  if (areaStart < start || areaStart + BigInt(ignition.length) > start + size)
    fail(
      CDBOOT_INITRD_START,
      `the Ignition area (${ignition.length} bytes at ${areaStart}) is not inside the initrd the kernel loads (${size} bytes from ${start})`,
    );
}
