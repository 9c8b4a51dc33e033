import { describe, expect, it } from 'vitest';

import { FormatError } from '../../errors.js';
import { BincodeError, BincodeReader, BincodeWriter } from './miniso-bincode.js';
import { encodeMinisoData, MINISO_MAX_BYTES, parseMinisoData, tableProblem, type MinisoData } from './miniso-format.js';

const sample = (): MinisoData => ({
  appVersion: '0.17.0',
  entries: [
    { minimal: 44, full: 44, length: 2048 },
    { minimal: 45, full: 45, length: 2048 },
    { minimal: 152, full: 64, length: 262144 },
    { minimal: 300, full: 70_000, length: 70_000 },
  ],
  digest: Buffer.alloc(32, 0xab),
  xzpacked: Buffer.from('not really xz'),
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('bincode varints (bincode 1.x VarintEncoding)', () => {
  const enc = (v: number | bigint): string => new BincodeWriter().varint(v).toBuffer().toString('hex');

  it('writes the shortest form: one byte up to 250, then 251+u16, 252+u32, 253+u64 (little-endian)', () => {
    expect(enc(0)).toBe('00');
    expect(enc(250)).toBe('fa');
    expect(enc(251)).toBe('fbfb00');
    expect(enc(2048)).toBe('fb0008');
    expect(enc(0xffff)).toBe('fbffff');
    expect(enc(0x10000)).toBe('fc00000100');
    expect(enc(0xffff_ffff)).toBe('fcffffffff');
    expect(enc(0x1_0000_0000)).toBe('fd0000000001000000');
  });

  it('reads every form back, and accepts a non-shortest form that fits', () => {
    for (const v of [0, 1, 250, 251, 2048, 65535, 65536, 0xffff_ffff]) {
      expect(new BincodeReader(new BincodeWriter().varint(v).toBuffer()).u32('v')).toBe(v);
    }
    expect(new BincodeReader(Buffer.from('fc05000000', 'hex')).u32('v')).toBe(5);
    expect(new BincodeReader(Buffer.from('fd0000000001000000', 'hex')).u64('v')).toBe(2 ** 32);
  });

  it('rejects values too large for the type, the u128 marker and the reserved marker', () => {
    expect(() => new BincodeReader(Buffer.from('fd0000000001000000', 'hex')).u32('v')).toThrow(/does not fit in a u32/);
    expect(() => new BincodeReader(Buffer.from('fe', 'hex')).u32('v')).toThrow(/u128/);
    expect(() => new BincodeReader(Buffer.from('ff', 'hex')).u32('v')).toThrow(/invalid varint marker byte 255/);
  });

  it('strings and byte vectors are a varint length then the bytes; lengths past the end are truncation', () => {
    const buf = new BincodeWriter()
      .string('0.17.0')
      .byteVec(Buffer.from([1, 2, 3]))
      .toBuffer();
    expect(buf.toString('hex')).toBe('06302e31372e3003010203');
    const r = new BincodeReader(buf);
    expect(r.string('s')).toBe('0.17.0');
    expect([...r.byteVec('b')]).toEqual([1, 2, 3]);
    expect(() => new BincodeReader(Buffer.from('0561', 'hex')).string('s')).toThrow(BincodeError);
    expect(() => new BincodeReader(Buffer.from('02c328', 'hex')).string('s')).toThrow(/invalid UTF-8/);
  });
});

describe('miniso.dat version 1', () => {
  it('encodes the header and data exactly as coreos-installer lays them out', () => {
    const bytes = encodeMinisoData(sample());
    // magic, version 1, app_version "0.17.0", 4 entries, first entry 44/44/2048
    expect(bytes.subarray(0, 22).toString('hex')).toBe(
      '4d494e49534f0000' + '01' + '06302e31372e30' + '04' + '2c2cfb0008',
    );
    expect(parseMinisoData(bytes, 'test')).toEqual(sample());
  });

  it('ignores bytes after the data (the reserved file is zero-padded)', () => {
    const bytes = Buffer.concat([encodeMinisoData(sample()), Buffer.alloc(16384)]);
    expect(parseMinisoData(bytes, 'test')).toEqual(sample());
  });

  it('rejects a bad magic, naming the file', () => {
    const bytes = encodeMinisoData(sample());
    bytes[0] = 0x6d;
    const err = thrown(() => parseMinisoData(bytes, 'coreos/miniso.dat of x.iso'));
    expect(err).toBeInstanceOf(FormatError);
    expect((err as Error).message).toMatch(/^reading coreos\/miniso.dat of x.iso: not a miniso data file/);
  });

  it('rejects other versions, naming the version and the writer', () => {
    const bytes = encodeMinisoData(sample());
    bytes[8] = 2;
    expect(() => parseMinisoData(bytes, 'test')).toThrow(/incompatible miniso data version 2 \(written by "0.17.0"\)/);
    expect(() => parseMinisoData(Buffer.alloc(100), 'test')).toThrow(/not a miniso data file/);
  });

  it('rejects every truncation with a FormatError', () => {
    const bytes = encodeMinisoData(sample());
    for (let n = 0; n < bytes.length; n++) {
      const err = thrown(() => parseMinisoData(bytes.subarray(0, n), 'test'));
      expect(err, `prefix of ${n} bytes`).toBeInstanceOf(FormatError);
      expect((err as Error).message, `prefix of ${n} bytes`).toMatch(/truncated|not a miniso/);
    }
  });

  it('validates the table as coreos-installer does: not empty, in order, no overlap', () => {
    expect(tableProblem([])).toMatch(/empty/);
    expect(
      tableProblem([
        { minimal: 10, full: 1, length: 2049 },
        { minimal: 11, full: 2, length: 1 },
      ]),
    ).toMatch(/overlap/);
    expect(
      tableProblem([
        { minimal: 11, full: 1, length: 1 },
        { minimal: 10, full: 2, length: 1 },
      ]),
    ).toMatch(/overlap or are out of order/);
    expect(
      tableProblem([
        { minimal: 10, full: 1, length: 2048 },
        { minimal: 11, full: 2, length: 1 },
      ]),
    ).toBeUndefined();
    const overlapping = encodeMinisoData(sample());
    expect(overlapping[22]).toBe(45); // the second entry's minimal sector, right after the first entry's 2048 bytes
    overlapping[22] = 44;
    expect(() => parseMinisoData(overlapping, 'test')).toThrow(/invalid table: .*overlap/);
    expect(() => encodeMinisoData({ ...sample(), entries: [] })).toThrow(FormatError);
  });

  it('reads at most 1 MiB, like coreos-installer', () => {
    const big = { ...sample(), xzpacked: Buffer.alloc(MINISO_MAX_BYTES) };
    expect(() => encodeMinisoData(big)).toThrow(/exceed the 1048576-byte limit/);
    const w = new BincodeWriter()
      .bytes(Buffer.from('MINISO\0\0', 'latin1'))
      .varint(1)
      .string('x')
      .varint(1)
      .varint(1)
      .varint(1)
      .varint(1);
    const bytes = Buffer.concat([
      w.bytes(Buffer.alloc(32)).varint(MINISO_MAX_BYTES).toBuffer(),
      Buffer.alloc(MINISO_MAX_BYTES),
    ]);
    expect(() => parseMinisoData(bytes, 'test')).toThrow(/may not exceed 1048576 bytes/);
  });
});
