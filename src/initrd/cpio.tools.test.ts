import { readFileSync, statSync, mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { BadRequestError, FormatError } from '../errors.js';
import {
  type CpioEntry,
  type CpioFileInput,
  DIRECTORY_MODE,
  S_IFREG,
  isDirectory,
  readCpio,
  readCpioArchive,
  writeCpio,
} from './cpio.js';
import { lastByPath } from './initrd.js';
import { tempDir, tool } from './test-support/tools.js';

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

function summary(entries: CpioEntry[]): Array<[string, string, string]> {
  return entries.map((e) => [e.path, e.mode.toString(8), e.data.toString('utf8')]);
}

/** Builds a newc archive with the system's GNU cpio from files created in a temp dir. */
function systemCpio(files: Record<string, string>, format = 'newc'): Buffer {
  const dir = tempDir();
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir.path, path, '..'), { recursive: true });
      writeFileSync(join(dir.path, path), content);
    }
    const list = tool('find', ['.', '-mindepth', '1'], { cwd: dir.path })
      .stdout.toString('utf8')
      .split('\n')
      .filter(Boolean);
    const names = list.map((p) => p.replace(/^\.\//, '')).sort();
    return tool('cpio', ['-o', '-H', format, '--quiet'], { cwd: dir.path, input: Buffer.from(names.join('\n') + '\n') })
      .stdout;
  } finally {
    dir.cleanup();
  }
}

describe('writeCpio', () => {
  it('emits parent directories first, members sorted, coreos-installer header fields', () => {
    const archive = writeCpio([
      { path: 'etc/coreos-firstboot-network/eth0.nmconnection', data: text('[connection]\n'), mode: 0o600 },
      { path: 'config.ign', data: text('{}'), mode: 0o644 },
    ]);
    const entries = readCpio(archive);
    expect(entries.map((e) => [e.path, e.mode.toString(8), e.ino])).toEqual([
      ['config.ign', '100644', 0],
      ['etc', '40755', 1],
      ['etc/coreos-firstboot-network', '40755', 2],
      ['etc/coreos-firstboot-network/eth0.nmconnection', '100600', 3],
    ]);
    for (const e of entries) {
      expect([e.uid, e.gid, e.nlink, e.mtime, e.devMajor, e.devMinor, e.rdevMajor, e.rdevMinor]).toEqual([
        0, 0, 1, 0, 0, 0, 0, 0,
      ]);
    }

    // First header, byte for byte: lowercase hex, ino 0, S_IFREG|0644, nlink 1, size 2, namesize 11.
    const expectedHeader =
      '070701' +
      ['0', '81a4', '0', '0', '1', '0', '2', '0', '0', '0', '0', 'b', '0'].map((v) => v.padStart(8, '0')).join('');
    expect(archive.toString('latin1', 0, 110)).toBe(expectedHeader);
    // 110 + 11 = 121 -> name padded to 124; data "{}" padded to 128.
    expect(archive.toString('latin1', 110, 124)).toBe('config.ign\0\0\0\0');
    expect(archive.toString('latin1', 124, 128)).toBe('{}\0\0');
    expect(archive.toString('latin1', 128, 134)).toBe('070701');
    // Trailer: ino 0, mode 0, nlink 1, namesize 11, and the archive length is a multiple of 4.
    expect(archive.length % 4).toBe(0);
    const trailer = archive.length - 124;
    expect(archive.toString('latin1', trailer, archive.length)).toBe(
      '070701' +
        ['0', '0', '0', '0', '1', '0', '0', '0', '0', '0', '0', 'b', '0'].map((v) => v.padStart(8, '0')).join('') +
        'TRAILER!!!\0\0\0\0',
    );
  });

  it('creates each directory once, in the order coreos-installer does', () => {
    // Same inputs as coreos-installer's `directories` test in src/io/initrd.rs.
    const paths = ['c/f', 'c/a/b/d/f', 'd', 'c/g', 'c/a/c/f', 'a/b/c/d/e/f'];
    const entries = readCpio(writeCpio(paths.map((path) => ({ path, data: Buffer.alloc(0) }))));
    expect(entries.map((e) => [isDirectory(e), e.path])).toEqual([
      [true, 'a'],
      [true, 'a/b'],
      [true, 'a/b/c'],
      [true, 'a/b/c/d'],
      [true, 'a/b/c/d/e'],
      [false, 'a/b/c/d/e/f'],
      [true, 'c'],
      [true, 'c/a'],
      [true, 'c/a/b'],
      [true, 'c/a/b/d'],
      [false, 'c/a/b/d/f'],
      [true, 'c/a/c'],
      [false, 'c/a/c/f'],
      [false, 'c/f'],
      [false, 'c/g'],
      [false, 'd'],
    ]);
    expect(entries.filter(isDirectory).every((e) => e.mode === DIRECTORY_MODE)).toBe(true);
    expect(entries.filter((e) => !isDirectory(e)).every((e) => e.mode === (S_IFREG | 0o600))).toBe(true);
    expect(entries.map((e) => e.ino)).toEqual(entries.map((_, i) => i));
  });

  it('sorts by UTF-8 bytes, not UTF-16 code units', () => {
    // UTF-8: U+FF5E is EF BD 9E, U+1F600 is F0 9F 98 80, so U+FF5E first. UTF-16 code units
    // (JS default sort) would put U+1F600's lead surrogate D83D first. coreos-installer's
    // BTreeMap<String> orders by UTF-8 bytes.
    const entries = readCpio(
      writeCpio([
        { path: '😀', data: text('b') },
        { path: '～', data: text('a') },
      ]),
    );
    expect(entries.map((e) => e.path)).toEqual(['～', '😀']);
  });

  it('is deterministic whatever the input order', () => {
    const files: CpioFileInput[] = [
      { path: 'b/x', data: text('1') },
      { path: 'a', data: text('22'), mode: 0o644 },
      { path: 'b/y/z', data: text('333') },
    ];
    const one = writeCpio(files);
    expect(writeCpio([...files].reverse()).equals(one)).toBe(true);
    expect(writeCpio(files).equals(one)).toBe(true);
  });

  it('round-trips contents of every length modulo 4, empty files and unicode names', () => {
    const files: CpioFileInput[] = [];
    for (let n = 0; n < 9; n++)
      files.push({ path: `dir/n${n}${'x'.repeat(n)}`, data: Buffer.alloc(n, 0x41 + n), mode: 0o640 });
    files.push({ path: 'ünï/cödé', data: text('ü') });
    const entries = readCpio(writeCpio(files));
    const byPath = lastByPath(entries);
    for (const f of files) {
      const entry = byPath.get(f.path)!;
      expect(entry.data.equals(Buffer.from(f.data))).toBe(true);
      expect(entry.mode).toBe(S_IFREG | (f.mode ?? 0o600));
    }
  });

  it('rejects paths the kernel or cpio would mishandle, duplicates and bad modes', () => {
    const bad: CpioFileInput[][] = [
      [{ path: '', data: text('') }],
      [{ path: '/etc/x', data: text('') }],
      [{ path: 'a/../b', data: text('') }],
      [{ path: './a', data: text('') }],
      [{ path: 'a//b', data: text('') }],
      [{ path: 'a/', data: text('') }],
      [{ path: 'a\0b', data: text('') }],
      [{ path: 'TRAILER!!!', data: text('') }],
      [{ path: 'x', data: text(''), mode: 0o100644 }],
      [{ path: 'x', data: text(''), mode: -1 }],
      [
        { path: 'x', data: text('') },
        { path: 'x', data: text('2') },
      ],
      [
        { path: 'x', data: text('') },
        { path: 'x/y', data: text('2') },
      ],
    ];
    for (const files of bad)
      expect(() => writeCpio(files), JSON.stringify(files.map((f) => f.path))).toThrow(BadRequestError);
  });
});

describe('independent readers read what writeCpio writes', () => {
  it('GNU cpio lists and extracts the same files and modes', () => {
    const files: CpioFileInput[] = [
      { path: 'config.ign', data: text('{"ignition":{"version":"3.2.0"}}'), mode: 0o644 },
      { path: 'etc/coreos-firstboot-network/eth0.nmconnection', data: text('[connection]\nid=eth0\n'), mode: 0o600 },
      { path: 'etc/coreos-firstboot-network/b.nmconnection', data: Buffer.alloc(5, 7), mode: 0o600 },
      { path: 'empty', data: Buffer.alloc(0), mode: 0o755 },
    ];
    const archive = writeCpio(files);
    const dir = tempDir();
    try {
      const listed = tool('cpio', ['-i', '--list', '--quiet'], { input: archive, cwd: dir.path })
        .stdout.toString('utf8')
        .split('\n')
        .filter(Boolean);
      expect(listed).toEqual([
        'config.ign',
        'empty',
        'etc',
        'etc/coreos-firstboot-network',
        'etc/coreos-firstboot-network/b.nmconnection',
        'etc/coreos-firstboot-network/eth0.nmconnection',
      ]);
      tool('cpio', ['-idm', '--quiet', '--no-absolute-filenames'], { input: archive, cwd: dir.path });
      for (const f of files) {
        const path = join(dir.path, f.path);
        expect(readFileSync(path).equals(Buffer.from(f.data))).toBe(true);
        expect(statSync(path).mode).toBe(S_IFREG | f.mode!);
        expect(statSync(path).mtimeMs).toBe(0);
      }
      expect(statSync(join(dir.path, 'etc/coreos-firstboot-network')).mode).toBe(DIRECTORY_MODE);
    } finally {
      dir.cleanup();
    }
  });
});

describe('readCpio', () => {
  it('reads archives written by GNU cpio (uppercase hex, 512-byte block padding)', () => {
    const archive = systemCpio({ 'data/hello': 'HELLO\n', 'data/world': 'WORLD\n', top: '' });
    expect(archive.toString('latin1', 0, 110)).toMatch(/^070701[0-9A-F]{104}$/);
    expect(archive.length % 512).toBe(0);
    const entries = readCpio(archive);
    expect(summary(entries)).toEqual([
      ['data', expect.stringMatching(/^40\d{3}$/), ''],
      ['data/hello', expect.stringMatching(/^100\d{3}$/), 'HELLO\n'],
      ['data/world', expect.stringMatching(/^100\d{3}$/), 'WORLD\n'],
      ['top', expect.stringMatching(/^100\d{3}$/), ''],
    ]);
  });

  it('reads the crc ("070702") format and verifies its checksums', () => {
    const archive = systemCpio({ a: 'checksummed\n' }, 'crc');
    expect(archive.toString('latin1', 0, 6)).toBe('070702');
    expect(readCpio(archive).map((e) => e.data.toString())).toEqual(['checksummed\n']);
    const corrupt = Buffer.from(archive);
    const at = corrupt.indexOf('checksummed');
    corrupt[at] = 'C'.charCodeAt(0);
    expect(() => readCpio(corrupt)).toThrow(/checksum mismatch/);
  });

  it('reads concatenated archives; the last copy of a path wins, as in the kernel', () => {
    const archives = ['first', 'second', 'third'].map((word) => systemCpio({ 'data/file': `${word}\n` }));
    const entries = readCpio(
      Buffer.concat([archives[0]!, Buffer.alloc(8), archives[1]!, archives[2]!, Buffer.alloc(100)]),
    );
    expect(entries.filter((e) => e.path === 'data/file')).toHaveLength(3);
    expect(lastByPath(entries).get('data/file')!.data.toString()).toBe('third\n');
  });

  it('reads names padded with extra NULs (dracut-cpio --data-align)', () => {
    const name = Buffer.concat([text('dir/hello'), Buffer.alloc(19)]); // 28 bytes incl. terminator
    const data = Buffer.alloc(5000, 'z');
    const field = (v: number): string => v.toString(16).padStart(8, '0');
    const header = '070701' + [1, 0o100644, 0, 0, 1, 0, data.length, 0, 0, 0, 0, name.length, 0].map(field).join('');
    const entry = Buffer.concat([Buffer.from(header, 'latin1'), name, Buffer.alloc(2), data]); // 110+28 -> 140
    const trailer = writeCpio([]); // a lone trailer
    const entries = readCpio(Buffer.concat([entry, trailer]));
    expect(entries.map((e) => [e.path, e.data.length])).toEqual([['dir/hello', 5000]]);
  });

  it('reports the end of one archive so a caller can continue after it', () => {
    const a = writeCpio([{ path: 'a', data: text('1') }]);
    const b = writeCpio([{ path: 'b', data: text('2') }]);
    const both = Buffer.concat([a, b]);
    expect(readCpioArchive(both, 0).end).toBe(a.length);
    expect(readCpioArchive(both, a.length).entries.map((e) => e.path)).toEqual(['b']);
  });

  it('rejects malformed archives with FormatError', () => {
    const good = writeCpio([{ path: 'file', data: text('contents') }]);
    const variants: Array<[string, Buffer]> = [
      ['empty', Buffer.alloc(0)],
      ['all zeros', Buffer.alloc(512)],
      ['bad magic', Buffer.concat([text('070707'), good.subarray(6)])],
      [
        'garbage',
        text(
          'this is not a cpio archive at all, not even close to one; no no no no no no no no no no no no no no no no no no',
        ),
      ],
      ['non-hex field', Buffer.concat([good.subarray(0, 6), text('0000000g'), good.subarray(14)])],
      ['truncated header', good.subarray(0, 60)],
      ['truncated data', good.subarray(0, 118)],
      ['missing trailer', good.subarray(0, good.length - 124)],
      ['trailing garbage', Buffer.concat([good, text('junk')])],
    ];
    const noNul = Buffer.from(good);
    noNul[110 + 4] = 0x41; // "file\0" -> "fileA"
    variants.push(['name not NUL-terminated', noNul]);
    const badUtf8 = Buffer.from(good);
    badUtf8[110] = 0xff;
    variants.push(['name not UTF-8', badUtf8]);
    const huge = Buffer.from(good);
    huge.write('7fffffff', 6 + 6 * 8, 'latin1'); // file size
    variants.push(['size past the end', huge]);
    for (const [what, bytes] of variants) expect(() => readCpio(bytes), what).toThrow(FormatError);
  });
});

describe('modes survive extraction by GNU cpio of archives it wrote', () => {
  it('reads modes set on disk', () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, 'secret'), 'x');
      chmodSync(join(dir.path, 'secret'), 0o600);
      const archive = tool('cpio', ['-o', '-H', 'newc', '--quiet'], { cwd: dir.path, input: text('secret\n') }).stdout;
      expect(readCpio(archive)[0]!.mode).toBe(S_IFREG | 0o600);
    } finally {
      dir.cleanup();
    }
  });
});
