// The streaming tar reader against archives GNU tar writes (ustar with prefix, pax, GNU long
// names and long link names), fed in awkward chunk sizes, plus corrupt, truncated and oversize
// inputs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type TarEntry, readTar } from './tar-reader.js';
import { tarOf, tarWithNames } from './test-support/oci-images.js';

const work = mkdtempSync(path.join(tmpdir(), 'bootsmith-tar-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function list(
  bytes: Buffer,
  chunk = 7_919,
  maxEntries = 1000,
  read = true,
): Promise<Array<TarEntry & { content?: string }>> {
  const out: Array<TarEntry & { content?: string }> = [];
  for await (const { entry, body } of readTar(chunked(bytes, chunk), maxEntries, 'test layer')) {
    if (!read || entry.type !== 'file') {
      out.push(entry);
      continue;
    }
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(c);
    out.push({ ...entry, content: Buffer.concat(parts).toString('utf8') });
  }
  return out;
}

const longDir = `${'a'.repeat(90)}/${'b'.repeat(90)}`;
const tree = {
  'hello.txt': Buffer.from('hello\n'),
  [`${longDir}/deep.txt`]: Buffer.from('deep\n'),
  'ünïcode/ñame.txt': Buffer.from('utf8\n'),
  'empty.txt': Buffer.alloc(0),
  link: { symlink: `${'t'.repeat(150)}/target` },
  'z-hard.txt': { hardlink: 'hello.txt' }, // GNU tar sorts by name: the file comes first
  'block.bin': Buffer.alloc(1536, 7),
};

describe('readTar', () => {
  it.each(['posix', 'gnu', 'ustar'] as const)(
    'reads what GNU tar writes in %s format, in odd chunk sizes',
    async (format) => {
      const t =
        format === 'ustar'
          ? { ...tree, link: { symlink: 'short/target' }, 'ünïcode/ñame.txt': Buffer.from('utf8\n') }
          : tree;
      const bytes = tarOf(work, t, format);
      for (const chunk of [1, 511, 512, 7_919, bytes.length]) {
        const entries = await list(bytes, chunk);
        const byPath = new Map(entries.map((e) => [e.path, e]));
        expect(byPath.get('hello.txt')).toMatchObject({ type: 'file', size: 6, content: 'hello\n', escapes: false });
        expect(byPath.get(`${longDir}/deep.txt`)).toMatchObject({ type: 'file', content: 'deep\n' });
        expect(byPath.get('ünïcode/ñame.txt')).toMatchObject({ type: 'file', content: 'utf8\n' });
        expect(byPath.get('empty.txt')).toMatchObject({ type: 'file', size: 0, content: '' });
        expect(byPath.get('block.bin')).toMatchObject({ type: 'file', size: 1536, content: '\x07'.repeat(1536) });
        expect(byPath.get('link')).toMatchObject({
          type: 'symlink',
          linkTarget: (t.link as { symlink: string }).symlink,
          size: 0,
        });
        expect(byPath.get('z-hard.txt')).toMatchObject({ type: 'hardlink', linkTarget: './hello.txt', size: 0 });
        expect(byPath.get('ünïcode')).toMatchObject({ type: 'directory' });
        expect(entries.some((e) => e.path === '')).toBe(true); // the archive's "." entry
      }
    },
  );

  it('skips bodies the consumer does not read', async () => {
    const entries = await list(tarOf(work, tree), 4096, 1000, false);
    expect(entries.map((e) => e.path)).toContain('block.bin');
    expect(entries.length).toBeGreaterThan(7);
  });

  it('flags paths that escape the root', async () => {
    const entries = await list(
      tarWithNames(work, [
        { name: '../up.iso', bytes: Buffer.from('x') },
        { name: 'ok/../../up2', bytes: Buffer.from('y') },
      ]),
    );
    expect(entries.map((e) => [e.path, e.escapes])).toEqual([
      ['../up.iso', true],
      ['ok/../../up2', true],
    ]);
  });

  it('refuses more entries than the budget', async () => {
    const bytes = tarOf(work, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, Buffer.from('x')])));
    await expect(list(bytes, 4096, 10)).rejects.toThrow(/test layer: the tar archive has more than 10 entries/);
  });

  it('refuses a header that fails its checksum', async () => {
    const bytes = Buffer.from(tarOf(work, { 'a.txt': Buffer.from('a') }));
    let header = 0;
    for (let off = 0; off < bytes.length; off += 512)
      if (
        bytes
          .subarray(off, off + 100)
          .toString('latin1')
          .startsWith('./a.txt') &&
        bytes[off + 156] === 0x30
      )
        header = off;
    expect(header).toBeGreaterThan(0);
    bytes[header + 60] = bytes[header + 60]! ^ 0x55; // inside a.txt's header name field
    await expect(list(bytes)).rejects.toThrow(/fails its checksum/);
  });

  it('refuses data that is not a tar', async () => {
    await expect(list(Buffer.alloc(2048, 0x41))).rejects.toThrow(/no valid checksum field|no ustar magic/);
  });

  it('refuses a truncated archive, inside an entry or a header', async () => {
    const bytes = tarOf(work, { 'big.bin': Buffer.alloc(100_000, 1) });
    await expect(list(bytes.subarray(0, 50_000))).rejects.toThrow(/truncated/);
    await expect(list(bytes.subarray(0, 100))).rejects.toThrow(/truncated \(100 of 512 bytes\)/);
  });

  it('reads an archive that ends at an entry boundary without the end-of-archive block (as umoci insert writes)', async () => {
    const bytes = tarOf(work, { 'a.iso': Buffer.alloc(2048, 7), 'b.txt': Buffer.from('hi') });
    // the end of the last entry's padded body: everything after it is the end block and record padding
    let end = 0;
    for (let off = 0; off + 512 <= bytes.length;) {
      const header = bytes.subarray(off, off + 512);
      if (header.every((b) => b === 0)) break;
      const size = parseInt(header.subarray(124, 136).toString('latin1').replace(/\0.*$/, '').trim() || '0', 8);
      off += 512 + Math.ceil(size / 512) * 512;
      end = off;
    }
    const noEnd = bytes.subarray(0, end);
    expect((await list(noEnd)).map((e) => e.path)).toEqual((await list(bytes)).map((e) => e.path));
  });

  it('reads GNU base-256 sizes (files over 8 GiB)', async () => {
    const header = Buffer.alloc(512);
    header.write('huge.iso', 0);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header[124] = 0x80; // base-256, big-endian over the other 11 bytes: 2 × 2^32 = 2^33 bytes
    header[131] = 2;
    header.write('00000000000\0', 136);
    header.write('0', 156);
    header.write('ustar  \0', 257);
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const entries: TarEntry[] = [];
    await expect(
      (async () => {
        for await (const { entry } of readTar(chunked(Buffer.concat([header, Buffer.alloc(4096)]), 1024), 10, 'big'))
          entries.push(entry);
      })(),
    ).rejects.toThrow(/truncated/);
    expect(entries[0]).toMatchObject({ path: 'huge.iso', size: 2 ** 33 });
  });

  it('refuses an oversize pax record set', async () => {
    const header = Buffer.alloc(512);
    header.write('PaxHeaders/x', 0);
    header.write(`${(2 * 1024 * 1024).toString(8).padStart(11, '0')}\0`, 124);
    header.write('x', 156);
    header.write('ustar\x0000', 257);
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    await expect(list(Buffer.concat([header, Buffer.alloc(1024)]))).rejects.toThrow(
      /metadata record of 2097152 bytes exceeds 1048576/,
    );
  });
});
