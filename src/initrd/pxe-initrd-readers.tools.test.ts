// A PXE initrd built with buildPxeInitrdTail read back archive by archive: a base of a raw cpio
// and a gzip one (made by the real gzip), an xz embed archive and an uncompressed extra archive
// appended; every file is found, as the kernel's unpacker would find it.
import { describe, expect, it } from 'vitest';

import { isRegularFile, writeCpio } from './cpio.js';
import { buildEmbedArchive } from './embed-archive.js';
import { lastByPath, readInitrd } from './initrd.js';
import { buildPxeInitrdTail } from './pxe-initrd.js';
import { tool } from './test-support/tools.js';

const ignition = Buffer.from('{"ignition":{"version":"3.2.0"}}');

describe('buildPxeInitrdTail', () => {
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
