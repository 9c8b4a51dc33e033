// checkCdboot (s390x-cdboot.ts) on cdboot.img parameter areas built here byte by byte: a good one
// passes; an initrd offset outside the file, an initrd running past its end, an Ignition area
// outside the loaded initrd fail naming the image, cdboot.img and the byte offset.
import { describe, expect, it } from 'vitest';
import { checkCdboot, CDBOOT_INITRD_SIZE, CDBOOT_INITRD_START } from './s390x-cdboot.js';

const LENGTH = 131072 + 1024 + 262144;
const BASE = 10 * 2048; // where cdboot.img starts in the image

function cdboot(start: bigint, size: bigint): (offset: number, length: number) => Promise<Buffer> {
  const file = Buffer.alloc(CDBOOT_INITRD_SIZE + 8);
  file.writeBigUInt64BE(start, CDBOOT_INITRD_START);
  file.writeBigUInt64BE(size, CDBOOT_INITRD_SIZE);
  return (offset, length) => Promise.resolve(file.subarray(offset - BASE, offset - BASE + length));
}
const extent = { offset: BASE, length: LENGTH };
const area = { file: 'images/cdboot.img', offset: BASE + 132096, length: 262144 };

describe('checkCdboot', () => {
  it('accepts the layout of the coreos-installer s390x fixture (initrd at 131072, area right after it)', async () => {
    await expect(checkCdboot('s.iso', extent, area, cdboot(131072n, 1024n + 262144n))).resolves.toBeUndefined();
  });
  it.each([
    [
      'an initrd offset past the end',
      1n << 40n,
      1024n,
      /s\.iso: at byte 66568 of images\/cdboot\.img: the initrd offset 1099511627776 points outside the file/,
    ],
    ['a zero initrd offset', 0n, 1024n, /at byte 66568 .*the initrd offset 0 points outside/],
    ['an initrd running past the end', 131072n, 1n << 20n, /at byte 66576 .*runs past the end of the file/],
    [
      'an Ignition area outside the loaded initrd',
      131072n,
      1024n,
      /at byte 66568 .*is not inside the initrd the kernel loads/,
    ],
  ])('refuses %s', async (_what, start, size, why) => {
    await expect(checkCdboot('s.iso', extent, area, cdboot(start, size))).rejects.toThrow(why);
  });
  it('refuses a file too short for a parameter area', async () => {
    await expect(checkCdboot('s.iso', { offset: BASE, length: 4096 }, area, cdboot(1n, 1n))).rejects.toThrow(
      /too short/,
    );
  });
});
