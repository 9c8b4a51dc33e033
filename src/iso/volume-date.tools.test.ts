// Volume dates read from real fixture ISOs and from hand-made descriptor fields.
import { copyFile, mkdtemp, open, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_ISO, MINISO_FIXTURE } from '../images/test-support/images.js';
import { parseVolumeDate, readVolumeDate } from './volume-date.js';

function field(digits: string, offsetQuarterHours = 0): Buffer {
  const b = Buffer.alloc(17);
  b.write(digits, 0, 'latin1');
  b.writeInt8(offsetQuarterHours, 16);
  return b;
}

describe('parseVolumeDate', () => {
  it('reads the digits and the GMT offset', () => {
    expect(parseVolumeDate(field('2024110912345678'))?.toISOString()).toBe('2024-11-09T12:34:56.780Z');
    // +02:00 (8 quarter hours east): 12:00 local is 10:00 GMT
    expect(parseVolumeDate(field('2024110912000000', 8))?.toISOString()).toBe('2024-11-09T10:00:00.000Z');
  });

  it('treats unset and malformed fields as no date', () => {
    expect(parseVolumeDate(field('0000000000000000'))).toBeUndefined();
    expect(parseVolumeDate(Buffer.alloc(17))).toBeUndefined();
    expect(parseVolumeDate(field('2024130912000000'))).toBeUndefined();
    expect(parseVolumeDate(field('20241109 2000000'))).toBeUndefined();
    expect(parseVolumeDate(Buffer.alloc(3))).toBeUndefined();
  });
});

describe('readVolumeDate', () => {
  it('gives the same date for two copies of an ISO whose file times differ', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-volume-date-'));
    try {
      const copy = path.join(dir, 'copy.iso');
      await copyFile(FIXTURE_ISO, copy);
      await utimes(copy, new Date('2030-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z'));
      const a = await readVolumeDate(FIXTURE_ISO);
      expect(a).toBeInstanceOf(Date);
      expect(a!.getUTCFullYear()).toBeGreaterThan(2000);
      expect((await readVolumeDate(copy))?.getTime()).toBe(a!.getTime());
      expect((await readVolumeDate(MINISO_FIXTURE))?.getTime()).toBeGreaterThan(0);

      const noIso = path.join(dir, 'zeros.bin');
      const fh = await open(noIso, 'w');
      await fh.write(Buffer.alloc(40 * 2048));
      await fh.close();
      expect(await readVolumeDate(noIso)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
