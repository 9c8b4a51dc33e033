// writeTar read back with an independent ustar reader written here from POSIX.1-2001 (512-byte
// header: name, octal mode/size/mtime, checksum over the header with its own field as spaces,
// typeflag '0', magic "ustar\0" + version "00"; data padded to 512; two zero blocks at the end).
import { describe, expect, it } from 'vitest';

import { writeTar } from './tar.js';

interface Member {
  name: string;
  mode: number;
  size: number;
  mtime: number;
  type: string;
  magic: string;
  data: Buffer;
}

function field(h: Buffer, offset: number, length: number): string {
  const raw = h.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
}

function readTar(tar: Buffer): Member[] {
  expect(tar.length % 512).toBe(0);
  const out: Member[] = [];
  let at = 0;
  for (;;) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const stored = parseInt(field(h, 148, 8).trim(), 8);
    const sum = [...h].reduce((acc, b, i) => acc + (i >= 148 && i < 156 ? 0x20 : b), 0);
    expect(sum, 'header checksum').toBe(stored);
    const size = parseInt(field(h, 124, 12), 8);
    out.push({
      name: field(h, 0, 100),
      mode: parseInt(field(h, 100, 8), 8),
      size,
      mtime: parseInt(field(h, 136, 12), 8),
      type: field(h, 156, 1),
      magic: `${field(h, 257, 6)}/${h.subarray(263, 265).toString('latin1')}`,
      data: tar.subarray(at + 512, at + 512 + size),
    });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  expect(tar.subarray(at)).toEqual(Buffer.alloc(1024)); // the end-of-archive marker, nothing after
  return out;
}

describe('writeTar', () => {
  it('writes regular files a ustar reader reads back exactly', () => {
    const files = [
      { name: 'host-a/eth0.nmconnection', data: Buffer.from('[connection]\nid=eth0\n') },
      { name: 'empty', data: Buffer.alloc(0), mode: 0o600 },
      { name: 'block', data: Buffer.alloc(512, 0x61) },
      { name: 'block+1', data: Buffer.alloc(513, 0x62) },
    ];
    const members = readTar(writeTar(files, new Date('2026-01-02T03:04:05Z')));
    expect(members.map((m) => [m.name, m.mode, m.size, m.type, m.magic])).toEqual([
      ['host-a/eth0.nmconnection', 0o644, 21, '0', 'ustar/00'],
      ['empty', 0o600, 0, '0', 'ustar/00'],
      ['block', 0o644, 512, '0', 'ustar/00'],
      ['block+1', 0o644, 513, '0', 'ustar/00'],
    ]);
    members.forEach((m, i) => expect(m.data).toEqual(files[i]!.data));
    expect(new Set(members.map((m) => m.mtime))).toEqual(new Set([Date.parse('2026-01-02T03:04:05Z') / 1000]));
  });

  it('is the end marker alone without files, and stamps the epoch by default', () => {
    expect(writeTar([])).toEqual(Buffer.alloc(1024));
    expect(readTar(writeTar([{ name: 'a', data: Buffer.from('x') }]))[0]!.mtime).toBe(0);
  });

  it('takes a 100-byte name and refuses a longer one (no long-name extension)', () => {
    const name = 'n'.repeat(100);
    expect(readTar(writeTar([{ name, data: Buffer.from('x') }]))[0]!.name).toBe(name);
    expect(() => writeTar([{ name: `${name}x`, data: Buffer.from('x') }])).toThrow('tar member name too long');
    expect(() => writeTar([{ name: 'é'.repeat(51), data: Buffer.from('x') }])).toThrow('tar member name too long');
  });
});
