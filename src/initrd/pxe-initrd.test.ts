import { describe, expect, it } from 'vitest';

import { BootsmithError } from '../errors.js';
import { isRegularFile, writeCpio } from './cpio.js';
import { buildEmbedArchive } from './embed-archive.js';
import { lastByPath, readInitrd } from './initrd.js';
import { alignmentPadding, buildPxeInitrdTail } from './pxe-initrd.js';
import { tool } from './test-support/tools.js';

const ignition = Buffer.from('{"ignition":{"version":"3.2.0"}}');

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

  it('makes an initrd whose every archive is read: base (raw + gzip, odd length) + xz embed archive + extra gzip initrd', async () => {
    const raw = writeCpio([{ path: 'etc/os-release', data: Buffer.from('ID=rhcos\n'), mode: 0o644 }]);
    const gz = tool('gzip', ['-c'], {
      input: writeCpio([{ path: 'usr/bin/ignition', data: Buffer.from('binary') }]),
    }).stdout;
    const joined = Buffer.concat([raw, gz]);
    // Zero bytes after a compressed stream are skipped by the kernel; use one to make the length odd if needed.
    const base = joined.length % 4 === 0 ? Buffer.concat([joined, Buffer.alloc(1)]) : joined;
    expect(base.length % 4).not.toBe(0);

    const embed = await buildEmbedArchive(
      { ignition, networkKeyfiles: [{ name: 'eth0', content: Buffer.from('[connection]\n') }] },
      { compression: 'xz' },
    );
    // An uncompressed extra archive: the kernel reads it only at a 4-byte aligned offset.
    const extra = writeCpio([{ path: 'etc/extra', data: Buffer.from('extra') }]);
    const { tail, archiveOffsets } = buildPxeInitrdTail(base.length, [embed, extra]);
    expect(archiveOffsets.every((o) => o % 4 === 0)).toBe(true);

    const initrd = Buffer.concat([base, tail]);
    expect(initrd.length % 4).toBe(0);
    const files = [...lastByPath(await readInitrd(initrd)).values()]
      .filter(isRegularFile)
      .map((e) => [e.path, e.data.toString()]);
    expect(files).toEqual([
      ['etc/os-release', 'ID=rhcos\n'],
      ['usr/bin/ignition', 'binary'],
      ['config.ign', ignition.toString()],
      ['etc/coreos-firstboot-network/eth0.nmconnection', '[connection]\n'],
      ['etc/extra', 'extra'],
    ]);
  });
});
