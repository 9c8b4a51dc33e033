import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { BadRequestError, FormatError, PayloadTooLargeError } from '../errors.js';
import { DIRECTORY_MODE, S_IFREG, readCpio } from './cpio.js';
import { type EmbedPayload, buildEmbedArchive, fitToArea, keyfileName, readEmbedArea } from './embed-archive.js';
import { tempDir, tool } from './test-support/tools.js';

const AREA = 256 * 1024;
const ignition = Buffer.from(JSON.stringify({ ignition: { version: '3.2.0' }, passwd: { users: [{ name: 'core' }] } }));
const payload: EmbedPayload = {
  ignition,
  networkKeyfiles: [
    { name: 'eth0', content: Buffer.from('[connection]\nid=eth0\ntype=ethernet\n') },
    { name: 'bond0.nmconnection', content: Buffer.from('[connection]\nid=bond0\ntype=bond\n') },
  ],
};

function padToArea(archive: Buffer): Buffer {
  return Buffer.concat([fitToArea(archive, AREA), Buffer.alloc(AREA - archive.length)]);
}

function extractWithGnuCpio(cpio: Buffer, check: (dir: string) => void): void {
  const dir = tempDir();
  try {
    tool('cpio', ['-idm', '--quiet', '--no-absolute-filenames'], { input: cpio, cwd: dir.path });
    check(dir.path);
  } finally {
    dir.cleanup();
  }
}

describe('buildEmbedArchive', () => {
  for (const compression of ['gzip', 'xz'] as const) {
    it(`${compression}: holds config.ign 0644 and keyfiles 0600 under etc/coreos-firstboot-network`, async () => {
      const archive = await buildEmbedArchive(payload, { compression });
      const cpio = tool(compression, ['-dc'], { input: archive }).stdout;
      expect(readCpio(cpio).map((e) => [e.path, e.mode.toString(8)])).toEqual([
        ['config.ign', '100644'],
        ['etc', '40755'],
        ['etc/coreos-firstboot-network', '40755'],
        ['etc/coreos-firstboot-network/bond0.nmconnection', '100600'],
        ['etc/coreos-firstboot-network/eth0.nmconnection', '100600'],
      ]);
      extractWithGnuCpio(cpio, (dir) => {
        expect(readFileSync(join(dir, 'config.ign')).equals(ignition)).toBe(true);
        expect(statSync(join(dir, 'config.ign')).mode).toBe(S_IFREG | 0o644);
        const eth0 = join(dir, 'etc/coreos-firstboot-network/eth0.nmconnection');
        expect(readFileSync(eth0).equals(payload.networkKeyfiles![0]!.content)).toBe(true);
        expect(statSync(eth0).mode).toBe(S_IFREG | 0o600);
        expect(statSync(join(dir, 'etc/coreos-firstboot-network')).mode).toBe(DIRECTORY_MODE);
      });
    });

    it(`${compression}: is deterministic and round-trips through readEmbedArea`, async () => {
      const archive = await buildEmbedArchive(payload, { compression });
      expect((await buildEmbedArchive(payload, { compression })).equals(archive)).toBe(true);
      const read = await readEmbedArea(padToArea(archive));
      expect(read.ignition?.equals(ignition)).toBe(true);
      expect(read.networkKeyfiles.map((k) => [k.name, k.content.toString()])).toEqual([
        ['bond0.nmconnection', payload.networkKeyfiles![1]!.content.toString()],
        ['eth0.nmconnection', payload.networkKeyfiles![0]!.content.toString()],
      ]);
      expect(read.members).toHaveLength(5);
    });
  }

  it('defaults to gzip; xz archives use the CRC32 check the kernel needs', async () => {
    expect((await buildEmbedArchive({ ignition })).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const xz = await buildEmbedArchive({ ignition }, { compression: 'xz' });
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, 'ignition.img'), xz);
      const file = tool('xz', ['--list', '--robot', join(dir.path, 'ignition.img')])
        .stdout.toString()
        .split('\n')
        .find((l) => l.startsWith('file\t'));
      expect(file!.split('\t')[6]).toBe('CRC32');
    } finally {
      dir.cleanup();
    }
  });

  it('without keyfiles holds only config.ign', async () => {
    const cpio = tool('gzip', ['-dc'], { input: await buildEmbedArchive({ ignition, networkKeyfiles: [] }) }).stdout;
    expect(readCpio(cpio).map((e) => e.path)).toEqual(['config.ign']);
  });

  it('validates keyfile names and rejects an empty Ignition config', async () => {
    expect(keyfileName('eth0')).toBe('eth0.nmconnection');
    expect(keyfileName('eth0.nmconnection')).toBe('eth0.nmconnection');
    expect(keyfileName('static ip.conf')).toBe('static ip.conf.nmconnection');
    for (const bad of ['', 'a/b', '../x', '.hidden', '.nmconnection', 'a\\b', 'tab\there', 'x'.repeat(250)]) {
      expect(() => keyfileName(bad), JSON.stringify(bad)).toThrow(BadRequestError);
    }
    const twice = {
      ignition,
      networkKeyfiles: [
        { name: 'eth0', content: Buffer.from('a') },
        { name: 'eth0.nmconnection', content: Buffer.from('b') },
      ],
    };
    await expect(buildEmbedArchive(twice)).rejects.toThrow(/given twice/);
    await expect(buildEmbedArchive({ ignition: Buffer.alloc(0) })).rejects.toThrow(BadRequestError);
  });
});

describe('fitToArea', () => {
  it('returns the archive untouched when it fits, exactly or with room to spare', () => {
    const archive = Buffer.from('archive');
    expect(fitToArea(archive, archive.length)).toBe(archive);
    expect(fitToArea(archive, AREA)).toBe(archive);
  });

  it('throws PayloadTooLargeError naming both sizes, never truncating', async () => {
    // Random data does not compress: ~300 KiB of it cannot fit a 256 KiB area.
    const big = await buildEmbedArchive(
      { ignition: Buffer.from(randomBytes(300 * 1024).toString('base64')) },
      { compression: 'xz' },
    );
    expect(big.length).toBeGreaterThan(AREA);
    let error: unknown;
    try {
      fitToArea(big, AREA);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    const tooLarge = error as PayloadTooLargeError;
    expect(tooLarge.payloadSize).toBe(big.length);
    expect(tooLarge.capacity).toBe(AREA);
    expect(tooLarge.message).toBe(`Ignition archive is ${big.length} bytes but only ${AREA} bytes are available`);
  });
});

describe('readEmbedArea', () => {
  it('reads an all-zero (pristine) area as empty', async () => {
    expect(await readEmbedArea(Buffer.alloc(AREA))).toEqual({ networkKeyfiles: [], members: [] });
  });

  it('does not mistake the zero bytes that end every small gzip archive for padding', async () => {
    const archive = await buildEmbedArchive({ ignition });
    // gzip ends with ISIZE, little-endian: for archives under 16 MiB its last byte is zero, so
    // "strip trailing zeros, then decode" would cut the gzip trailer.
    expect(archive[archive.length - 1]).toBe(0);
    expect((await readEmbedArea(padToArea(archive))).ignition?.equals(ignition)).toBe(true);
  });

  it('reads an assisted-image-service style area (GNU cpio + gzip, padded to 4, then zeros)', async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, 'config.ign'), ignition);
      const cpio = tool('cpio', ['-o', '-H', 'newc', '--quiet'], {
        cwd: dir.path,
        input: Buffer.from('config.ign\n'),
      }).stdout;
      const gz = tool('gzip', ['-c'], { input: cpio }).stdout;
      const read = await readEmbedArea(padToArea(gz));
      expect(read.ignition?.equals(ignition)).toBe(true);
      expect(read.networkKeyfiles).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });

  it('reads a coreos-installer style xz area and a zstd area', async () => {
    const cpio = tool('gzip', ['-dc'], { input: await buildEmbedArchive(payload) }).stdout;
    const xz = tool('xz', ['-9', '-c', '--check=crc32'], { input: cpio }).stdout;
    expect((await readEmbedArea(padToArea(xz))).networkKeyfiles.map((k) => k.name)).toEqual([
      'bond0.nmconnection',
      'eth0.nmconnection',
    ]);
    const zst = tool('zstd', ['-q', '-c'], { input: cpio }).stdout;
    expect((await readEmbedArea(padToArea(zst))).ignition?.equals(ignition)).toBe(true);
    expect((await readEmbedArea(padToArea(zst))).networkKeyfiles).toHaveLength(2);
  });

  it('rejects areas that hold something else or a damaged archive', async () => {
    const area = Buffer.alloc(AREA);
    area.write('{"not": "an archive"}');
    await expect(readEmbedArea(area)).rejects.toThrow(FormatError);
    const archive = await buildEmbedArchive(payload);
    const truncated = padToArea(archive.subarray(0, archive.length - 20));
    await expect(readEmbedArea(truncated)).rejects.toThrow(FormatError);
  });
});
