import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FormatError } from '../errors.js';
import { isRegularFile, writeCpio } from './cpio.js';
import { lastByPath, readInitrd } from './initrd.js';
import { tempDir, tool } from './test-support/tools.js';

/** `find <name> | cpio -o -H newc` over a directory holding hello and world, as GNU tools do it. */
function helloWorldCpio(name: string): Buffer {
  const dir = tempDir();
  try {
    mkdirSync(join(dir.path, name));
    writeFileSync(join(dir.path, name, 'hello'), 'HELLO\n');
    writeFileSync(join(dir.path, name, 'world'), 'WORLD\n');
    const list = `${name}\n${name}/hello\n${name}/world\n`;
    return tool('cpio', ['-o', '-H', 'newc', '--quiet'], { cwd: dir.path, input: Buffer.from(list) }).stdout;
  } finally {
    dir.cleanup();
  }
}

function files(entries: Awaited<ReturnType<typeof readInitrd>>): Record<string, string> {
  return Object.fromEntries(
    [...lastByPath(entries).values()].filter(isRegularFile).map((e) => [e.path, e.data.toString('utf8')]),
  );
}

const expected = (...names: string[]): Record<string, string> =>
  Object.fromEntries(
    names.flatMap((n) => [
      [`${n}/hello`, 'HELLO\n'],
      [`${n}/world`, 'WORLD\n'],
    ]),
  );

describe('readInitrd', () => {
  it('reads raw, gzip, xz and zstd archives concatenated without padding', async () => {
    // The layout of coreos-installer's fixtures/initrd/compressed-img.gen.sh, built here. The
    // compressed streams follow each other directly; the last raw archive is zero-padded to a
    // 4-byte offset, which the kernel requires of uncompressed archives.
    const head = Buffer.concat([
      helloWorldCpio('uncompressed-1'),
      tool('gzip', ['-9', '-c'], { input: helloWorldCpio('gzip') }).stdout,
      tool('xz', ['-9', '-c'], { input: helloWorldCpio('xz') }).stdout,
      tool('zstd', ['-q', '-19', '-c'], { input: helloWorldCpio('zstd') }).stdout,
    ]);
    const image = Buffer.concat([head, Buffer.alloc((4 - (head.length % 4)) % 4), helloWorldCpio('uncompressed-2')]);
    expect(files(await readInitrd(image))).toEqual(expected('uncompressed-1', 'gzip', 'xz', 'zstd', 'uncompressed-2'));
  });

  it('rejects an uncompressed archive at an offset that is not a multiple of 4, as the kernel does', async () => {
    const gz = tool('gzip', ['-c'], { input: helloWorldCpio('a') }).stdout;
    const head = gz.length % 4 === 3 ? gz : Buffer.concat([gz, Buffer.alloc(3 - (gz.length % 4))]);
    expect(head.length % 4).toBe(3);
    await expect(readInitrd(Buffer.concat([head, helloWorldCpio('b')]))).rejects.toThrow(/not 4-byte aligned/);
    expect(files(await readInitrd(Buffer.concat([head, Buffer.alloc(1), helloWorldCpio('b')])))).toEqual(
      expected('a', 'b'),
    );
  });

  it('skips zero padding before, between and after archives', async () => {
    const gz = tool('gzip', ['-c'], { input: helloWorldCpio('a') }).stdout;
    const image = Buffer.concat([
      Buffer.alloc(16),
      gz,
      Buffer.alloc(4 + ((4 - (gz.length % 4)) % 4)), // at least 4 zeros, then a 4-byte offset
      helloWorldCpio('b'),
      Buffer.alloc(4096),
    ]);
    expect(files(await readInitrd(image))).toEqual(expected('a', 'b'));
  });

  it('reads several archives inside one compressed stream; the last copy wins', async () => {
    const archives = ['first', 'second', 'third'].map((word) =>
      writeCpio([{ path: 'data/file', data: Buffer.from(`${word}\n`) }]),
    );
    const image = tool('xz', ['-c', '--check=crc32'], { input: Buffer.concat(archives) }).stdout;
    expect(files(await readInitrd(image))).toEqual({ 'data/file': 'third\n' });
  });

  it('returns nothing for an empty or all-zero image', async () => {
    expect(await readInitrd(Buffer.alloc(0))).toEqual([]);
    expect(await readInitrd(Buffer.alloc(262144))).toEqual([]);
  });

  it('rejects junk, at the start or after a valid archive', async () => {
    await expect(
      readInitrd(Buffer.from('not an initrd, certainly not a cpio archive; just a sentence long enough for a header')),
    ).rejects.toThrow(FormatError);
    const gz = tool('gzip', ['-c'], { input: helloWorldCpio('a') }).stdout;
    await expect(readInitrd(Buffer.concat([gz, Buffer.from([1, 2, 3, 4])]))).rejects.toThrow(FormatError);
    // A compressed stream that does not hold a cpio archive.
    await expect(readInitrd(tool('gzip', ['-c'], { input: Buffer.from('hello') }).stdout)).rejects.toThrow(FormatError);
  });
});
