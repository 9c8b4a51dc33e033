// The uncompressed size an .xz stream declares in its index (xz file format 1.0.4, sections 2.1.2
// and 4): the stream footer gives the index size; the index lists each block's unpadded and
// uncompressed sizes as multibyte integers. Used to size the progress of a minimal ISO rebuild
// before it runs (the xz-packed gap bytes plus the shared files' lengths).
// Does: parse the footer and index of one stream, bounded by the buffer. Does NOT: check CRCs or
// decompress (a wrong answer only misstates progress; the rebuild's digest check is what counts).

const FOOTER_SIZE = 12;
const FOOTER_MAGIC = 'YZ';
/** A multibyte integer is at most 9 bytes (63 bits). */
const MAX_VLI_BYTES = 9;

function readVli(buf: Buffer, at: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let i = 0; i < MAX_VLI_BYTES && at + i < buf.length; i++) {
    const byte = buf[at + i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return Number.isSafeInteger(value) ? { value, next: at + i + 1 } : undefined;
  }
  return undefined;
}

/** The uncompressed size of the single .xz stream in `xz` (trailing zero padding allowed), or undefined. */
export function xzUncompressedSize(xz: Buffer): number | undefined {
  let end = xz.length;
  while (end >= 4 && xz.readUInt32LE(end - 4) === 0) end -= 4; // stream padding
  if (end < FOOTER_SIZE * 2 || xz.toString('latin1', end - 2, end) !== FOOTER_MAGIC) return undefined;
  const indexSize = (xz.readUInt32LE(end - 8) + 1) * 4;
  const indexStart = end - FOOTER_SIZE - indexSize;
  if (indexStart < FOOTER_SIZE || xz[indexStart] !== 0x00) return undefined;
  const records = readVli(xz, indexStart + 1);
  if (records === undefined) return undefined;
  let at = records.next;
  let total = 0;
  for (let i = 0; i < records.value; i++) {
    const unpadded = readVli(xz, at);
    if (unpadded === undefined || unpadded.next >= end) return undefined;
    const uncompressed = readVli(xz, unpadded.next);
    if (uncompressed === undefined) return undefined;
    total += uncompressed.value;
    at = uncompressed.next;
    if (at > end - FOOTER_SIZE) return undefined;
  }
  return total;
}
