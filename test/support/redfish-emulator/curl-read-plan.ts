// The byte ranges qemu's curl block driver requests while a guest boots from an ISO URL — the
// pattern a BMC's virtual media reads with, modelled so a virtual guest can read like it. Pure.
//
// Measured 2025-11-24 on qemu 7.2 (Debian 1:7.2+dfsg-7+deb12u18), SeaBIOS + isolinux booting the
// 12 MiB bootable fixture (fixtures/build-bootable-iso.sh) from a scsi-cd whose medium is
// `blockdev-add {driver: raw, file: {driver: http, url}}`: one HEAD when the medium is opened,
// then 36 GETs, one at a time, each `Range: bytes=<offset>-<offset + request + 256 KiB - 1>`
// (the driver adds its default 256 KiB readahead to every guest read it cannot serve from the
// previous reply): 2 KiB requests at 34816 and 32768 (volume descriptors), two near the end
// (El Torito catalog, isolinux), then the kernel and initramfs as consecutive 64 KiB + 256 KiB =
// 320 KiB GETs, about 9 MiB of the 12.
//
// The plan: HEAD (done at insert), the two descriptor reads, then consecutive 320 KiB GETs from
// offset 0 until `maxBytes` (default: the whole image) has been covered.
// With `extents` (the boot files, as a boot loader loads them: kernel, initramfs, ignition.img),
// the guest reads each extent from its first sector in `bulkReadBytes` pieces instead, and a GET
// is sent only for a piece the previous reply does not hold — qemu's block/curl.c: a read found
// in a finished buffer is served from it (curl_find_buf); otherwise the Range is
// `offset .. offset + min(read, size - offset) + readahead - 1` (curl_setup_preadv), not aligned
// to the readahead size.

export const CURL_READAHEAD_BYTES = 256 * 1024;
/** The guest's bulk read size seen on the wire (SeaBIOS/isolinux loading the kernel and initramfs). */
export const GUEST_BULK_READ_BYTES = 64 * 1024;
/** The guest's first reads: 2 KiB sectors of the volume descriptors. */
const DESCRIPTOR_READS: readonly number[] = [34816, 32768];
const SECTOR = 2048;

export interface ReadRange {
  start: number;
  /** Inclusive, as in a Range header. */
  end: number;
}

export interface CurlReadOptions {
  readaheadBytes?: number;
  bulkReadBytes?: number;
  /** Bytes of the image the boot reads (default: all of it). */
  maxBytes?: number;
  /** Byte extents the boot reads, in this order (instead of `maxBytes` from offset 0). */
  extents?: readonly { offset: number; length: number }[];
}

export function curlReadPlan(size: number, options: CurlReadOptions = {}): ReadRange[] {
  const readahead = options.readaheadBytes ?? CURL_READAHEAD_BYTES;
  const step = (options.bulkReadBytes ?? GUEST_BULK_READ_BYTES) + readahead;
  const limit = Math.min(size, options.maxBytes ?? size);
  const ranges: ReadRange[] = [];
  for (const start of DESCRIPTOR_READS) {
    if (start < size) ranges.push({ start, end: Math.min(size, start + SECTOR + readahead) - 1 });
  }
  if (options.extents) return [...ranges, ...extentReads(size, options.extents, step - readahead, readahead)];
  for (let start = 0; start < limit; start += step) ranges.push({ start, end: Math.min(size, start + step) - 1 });
  return ranges;
}

/** The GETs of a guest reading `extents` in `bulk` pieces through a driver with `readahead`. */
function extentReads(
  size: number,
  extents: readonly { offset: number; length: number }[],
  bulk: number,
  readahead: number,
): ReadRange[] {
  const ranges: ReadRange[] = [];
  let held: ReadRange | undefined; // the last reply's bytes (the driver's buffer)
  for (const extent of extents) {
    const end = Math.min(size, extent.offset + extent.length);
    for (let at = extent.offset - (extent.offset % SECTOR); at < end; at += bulk) {
      const readEnd = Math.min(size, at + bulk, end + ((SECTOR - (end % SECTOR)) % SECTOR));
      if (held && at >= held.start && readEnd - 1 <= held.end) continue;
      held = { start: at, end: Math.min(size, readEnd + readahead) - 1 };
      ranges.push(held);
    }
  }
  return ranges;
}
