import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import { BootsmithError, FormatError } from '../errors.js';
import { compress, decodeStream, decompress, sniffFormat } from './compression.js';
import { gunzipMember } from './gzip.js';
import { tempDir, tool } from './test-support/tools.js';
import { xzEncode, xzStreamLength } from './xz.js';
import { zstdFramesLength } from './zstd.js';

// Compressible but not trivial: repeated text with some random bytes mixed in.
const sample = Buffer.concat([Buffer.from('{"ignition":{"version":"3.2.0"}}\n'.repeat(200)), randomBytes(3000)]);

function xzList(bytes: Buffer): string[] {
  const dir = tempDir();
  try {
    const file = join(dir.path, 'data.xz');
    writeFileSync(file, bytes);
    const line = tool('xz', ['--list', '--robot', file])
      .stdout.toString('utf8')
      .split('\n')
      .find((l) => l.startsWith('file\t'));
    return line!.split('\t');
  } finally {
    dir.cleanup();
  }
}

describe('sniffFormat', () => {
  it('recognizes the magics coreos-installer recognizes', () => {
    expect(sniffFormat(Buffer.from([0x1f, 0x8b, 8]))).toBe('gzip');
    expect(sniffFormat(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0]))).toBe('xz');
    expect(sniffFormat(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a]))).toBe('raw');
    expect(sniffFormat(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0]))).toBe('zstd');
    expect(sniffFormat(Buffer.from([0x5e, 0x2a, 0x4d, 0x18, 0]))).toBe('zstd'); // skippable frame
    expect(sniffFormat(Buffer.from('070701'))).toBe('raw');
    expect(sniffFormat(Buffer.alloc(0))).toBe('raw');
  });
});

describe('gzip', () => {
  it('is decoded by gzip -dc and is deterministic', async () => {
    const gz = await compress(sample, 'gzip');
    expect(tool('gzip', ['-dc'], { input: gz }).stdout.equals(sample)).toBe(true);
    expect((await compress(sample, 'gzip')).equals(gz)).toBe(true);
    expect((await decompress(gz)).equals(sample)).toBe(true);
  });

  it('decodes gzip -9 output with a file name, and multi-member files', async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, 'named.cpio'), sample);
      tool('gzip', ['-9', '-N', join(dir.path, 'named.cpio')]);
      const named = tool('cat', [join(dir.path, 'named.cpio.gz')]).stdout;
      expect(named[3]! & 0x08).toBe(0x08); // FNAME present
      expect((await decompress(named)).equals(sample)).toBe(true);
      const second = tool('gzip', ['-c'], { input: Buffer.from('second') }).stdout;
      expect((await decompress(Buffer.concat([named, second]))).toString('latin1')).toBe(
        sample.toString('latin1') + 'second',
      );
    } finally {
      dir.cleanup();
    }
  });

  it('knows where a member ends even when its trailer ends in zero bytes', () => {
    const gz = gzipSync(Buffer.alloc(1024, 1)); // ISIZE 1024 = 00 04 00 00
    expect(gz.subarray(-2)).toEqual(Buffer.from([0, 0]));
    const member = gunzipMember(Buffer.concat([gz, Buffer.from([0xfd, 0x37, 0x7a, 1, 2, 3])]));
    expect(member.consumed).toBe(gz.length);
    expect(member.data.equals(Buffer.alloc(1024, 1))).toBe(true);
  });

  it('rejects truncated and corrupt members', async () => {
    const gz = gzipSync(sample);
    await expect(decompress(gz.subarray(0, gz.length - 3))).rejects.toThrow(FormatError);
    await expect(decompress(gz.subarray(0, 20))).rejects.toThrow(FormatError);
    const badCrc = Buffer.from(gz);
    badCrc[badCrc.length - 8]! ^= 0xff;
    await expect(decompress(badCrc)).rejects.toThrow(/CRC32/);
    const badData = Buffer.from(gz);
    badData[20]! ^= 0xff;
    await expect(decompress(badData)).rejects.toThrow(FormatError);
  });
});

describe('xz', () => {
  it('uses the CRC32 check, is decoded by xz -dc and is deterministic', async () => {
    const xz = await compress(sample, 'xz');
    expect(tool('xz', ['-dc'], { input: xz }).stdout.equals(sample)).toBe(true);
    const fields = xzList(xz);
    expect(fields[6]).toBe('CRC32');
    expect(fields[1]).toBe('1'); // one stream
    expect((await compress(sample, 'xz')).equals(xz)).toBe(true);
    expect((await decompress(xz)).equals(sample)).toBe(true);
  });

  it('keeps the dictionary no bigger than the input needs', async () => {
    const xz = await xzEncode(Buffer.from('{}'));
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, 'x.xz'), xz);
      const verbose = tool('xz', ['--list', '--robot', '-vv', join(dir.path, 'x.xz')]).stdout.toString('utf8');
      expect(verbose).toMatch(/--lzma2=dict=4KiB/);
    } finally {
      dir.cleanup();
    }
  });

  it('decodes xz -9 output, concatenated streams and stream padding', async () => {
    const a = tool('xz', ['-9', '-c'], { input: sample }).stdout;
    const b = tool('xz', ['-c', '--check=none'], { input: Buffer.from('tail') }).stdout;
    expect((await decompress(a)).equals(sample)).toBe(true);
    const joined = Buffer.concat([a, Buffer.alloc(8), b, Buffer.alloc(4)]);
    expect(tool('xz', ['-dc'], { input: joined }).stdout.toString('latin1')).toBe(sample.toString('latin1') + 'tail');
    expect((await decompress(joined)).toString('latin1')).toBe(sample.toString('latin1') + 'tail');
  });

  it('finds the end of a stream from its structure, multi-block streams included', async () => {
    const multi = tool('xz', ['-c', '-T2', '--block-size=4096', '--check=sha256'], {
      input: randomBytes(20000),
    }).stdout;
    expect(Number(xzList(multi)[2])).toBeGreaterThan(1); // several blocks
    expect(xzStreamLength(Buffer.concat([multi, Buffer.from([0x1f, 0x8b, 0x59, 0x5a])]))).toBe(multi.length);
    const stream = await decodeStream(Buffer.concat([multi, Buffer.from('YZ trailing junk')]));
    expect(stream.consumed).toBe(multi.length);
  });

  it('rejects truncated and corrupt streams', async () => {
    const xz = await xzEncode(sample);
    await expect(decompress(xz.subarray(0, xz.length - 1))).rejects.toThrow(FormatError);
    await expect(decompress(xz.subarray(0, 40))).rejects.toThrow(FormatError);
    const corrupt = Buffer.from(xz);
    corrupt[40]! ^= 0x55;
    await expect(decompress(corrupt)).rejects.toThrow(FormatError);
  });

  it('says clearly when the xz program is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const error: unknown = await xzEncode(sample).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BootsmithError);
      expect((error as BootsmithError).kind).toBe('internal');
      expect((error as Error).message).toMatch(/"xz" program was not found/);
    } finally {
      process.env.PATH = path;
    }
  });
});

describe('zstd', () => {
  it('decodes output of the zstd CLI, with and without checksums, multi-frame', async () => {
    const checked = tool('zstd', ['-q', '-19', '-c'], { input: sample }).stdout;
    const unchecked = tool('zstd', ['-q', '--no-check', '-c'], { input: Buffer.from('more') }).stdout;
    expect((await decompress(checked)).equals(sample)).toBe(true);
    expect((await decompress(Buffer.concat([checked, unchecked]))).toString('latin1')).toBe(
      sample.toString('latin1') + 'more',
    );
    expect(zstdFramesLength(Buffer.concat([checked, unchecked, Buffer.alloc(3)]))).toBe(
      checked.length + unchecked.length,
    );
  });

  it('skips skippable frames', async () => {
    const frame = tool('zstd', ['-q', '-c'], { input: Buffer.from('payload') }).stdout;
    const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0]), Buffer.from('abc')]);
    const stream = await decodeStream(Buffer.concat([skippable, frame, Buffer.from('070701')]));
    expect(stream.format).toBe('zstd');
    expect(stream.data.toString()).toBe('payload');
    expect(stream.consumed).toBe(skippable.length + frame.length);
  });

  it('rejects truncated frames', async () => {
    const frame = tool('zstd', ['-q', '-c'], { input: sample }).stdout;
    await expect(decompress(frame.subarray(0, frame.length - 5))).rejects.toThrow(FormatError);
  });
});

describe('decompress', () => {
  it('returns raw data unchanged', async () => {
    expect((await decompress(Buffer.from('070701 raw'))).toString()).toBe('070701 raw');
  });

  it('decodes a mix of formats, adjacent or zero-padded, and ignores trailing zeros', async () => {
    const parts = [
      await compress(Buffer.from('one,'), 'gzip'),
      await compress(Buffer.from('two,'), 'xz'),
      tool('zstd', ['-q', '-c'], { input: Buffer.from('three') }).stdout,
    ];
    const bytes = Buffer.concat([parts[0]!, parts[1]!, Buffer.alloc(5), parts[2]!, Buffer.alloc(1000)]);
    expect((await decompress(bytes)).toString()).toBe('one,two,three');
  });

  it('rejects non-zero data after a compressed stream', async () => {
    const gz = await compress(Buffer.from('x'), 'gzip');
    await expect(decompress(Buffer.concat([gz, Buffer.alloc(3), Buffer.from('junk')]))).rejects.toThrow(
      /trailing data/,
    );
  });

  it('decodeStream refuses raw data', async () => {
    await expect(decodeStream(Buffer.from('plain'))).rejects.toThrow(FormatError);
  });
});
