// The bytes appended to a base PXE initrd to customize it: base + tail, where
// tail = zero padding to a multiple of 4, then each compressed archive, each one starting on a
// 4-byte boundary, and zero padding so the whole file ends on a 4-byte boundary.
//
// Why: the kernel (init/initramfs.c, unpack_to_rootfs) skips zero bytes between archives and
// accepts a compressed stream at any offset, but an uncompressed cpio only at an offset that is a
// multiple of 4; bootloaders that concatenate initrds (GRUB, iPXE) also align each to 4 bytes.
// Aligning costs at most 3 bytes per piece and keeps every piece valid whatever the base holds.
// assisted-image-service (pkg/isoeditor/initramfs.go, pkg/overlay NewAppendReader) appends its
// gzip archive directly after the base initrd, having padded the archive itself to a multiple of
// 4 with zeros (pkg/isoeditor/isoutil.go generateCompressedCPIO); coreos-installer
// `pxe customize` (src/live/mod.rs) copies the base and appends its xz archive with no padding.
// Does not: read the base initrd (only its length matters) or stream; SplicedFile appends the tail.

import { BootsmithError } from '../errors.js';
import { padTo4 } from './cpio.js';

/** Zero bytes needed after `length` bytes to reach a multiple of 4. */
export function alignmentPadding(length: number): number {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new BootsmithError('internal', `length ${length} is not a byte count`, { length });
  }
  return padTo4(length);
}

/** Layout of a tail: where each archive lands, counted from the start of the base initrd. */
export interface PxeInitrdTail {
  tail: Buffer;
  /** Offset of each archive in the combined file (base initrd + tail). */
  archiveOffsets: number[];
  /** Length of the combined file; always a multiple of 4. */
  totalLength: number;
}

/** Builds the bytes to append to a base initrd of `baseInitrdLength` bytes. */
export function buildPxeInitrdTail(baseInitrdLength: number, archives: Buffer | readonly Buffer[]): PxeInitrdTail {
  const list = Buffer.isBuffer(archives) ? [archives] : archives;
  const chunks: Buffer[] = [];
  const archiveOffsets: number[] = [];
  let position = baseInitrdLength;
  const pad = (): void => {
    const n = alignmentPadding(position);
    if (n > 0) chunks.push(Buffer.alloc(n));
    position += n;
  };
  pad();
  for (const archive of list) {
    archiveOffsets.push(position);
    chunks.push(archive);
    position += archive.length;
    pad();
  }
  return { tail: Buffer.concat(chunks), archiveOffsets, totalLength: position };
}
