// The layout of a PXE initrd's tail: padding, archive offsets, total length. Pure; that the
// kernel-side reader finds every archive in such an initrd is pxe-initrd-readers.tools.test.ts.
import { describe, expect, it } from 'vitest';

import { BootsmithError } from '../errors.js';
import { alignmentPadding, buildPxeInitrdTail } from './pxe-initrd.js';

describe('alignmentPadding', () => {
  it('is the distance to the next multiple of 4', () => {
    expect([0, 1, 2, 3, 4, 5, 2 ** 40 + 1].map(alignmentPadding)).toEqual([0, 3, 2, 1, 0, 3, 3]);
    expect(() => alignmentPadding(-1)).toThrow(BootsmithError);
    expect(() => alignmentPadding(1.5)).toThrow(BootsmithError);
  });
});

describe('buildPxeInitrdTail', () => {
  it('pads the base to 4, places each archive on a 4-byte boundary and ends on one', () => {
    const a = Buffer.from('AAAAA'); // 5 bytes
    const b = Buffer.from('BB');
    const { tail, archiveOffsets, totalLength } = buildPxeInitrdTail(1001, [a, b]);
    expect(archiveOffsets).toEqual([1004, 1012]);
    expect(totalLength).toBe(1016);
    expect(1001 + tail.length).toBe(totalLength);
    expect(tail).toEqual(Buffer.from('\0\0\0AAAAA\0\0\0BB\0\0', 'latin1'));
  });

  it('adds nothing around an aligned archive after an aligned base', () => {
    const archive = Buffer.from('ABCD');
    expect(buildPxeInitrdTail(4096, archive)).toEqual({ tail: archive, archiveOffsets: [4096], totalLength: 4100 });
  });
});
