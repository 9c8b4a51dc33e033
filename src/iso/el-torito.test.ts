// readBootCatalog (el-torito.ts) on catalogs written here byte by byte (the layout of the El
// Torito specification, not the reader's code): the platforms with a bootable entry in catalog
// order (default entry first, then each section's), non-bootable and extension entries ignored,
// and "no catalog" for an image without a boot record, a catalog outside the image or a
// validation entry without its 55 AA signature. Real catalogs: arch-bad-input.tools.test.ts.
import { describe, expect, it } from 'vitest';
import { readBootCatalog } from './el-torito.js';

const SECTOR = 2048;
const CATALOG_LBA = 19;

function image(catalog: (c: Buffer) => void, catalogLba = CATALOG_LBA, withBootRecord = true): Buffer {
  const b = Buffer.alloc(21 * SECTOR);
  const descriptor = (lba: number, type: number): Buffer => {
    const d = b.subarray(lba * SECTOR, (lba + 1) * SECTOR);
    d[0] = type;
    d.write('CD001', 1, 'latin1');
    d[6] = 1;
    return d;
  };
  descriptor(16, 1); // primary volume descriptor
  if (withBootRecord) {
    const boot = descriptor(17, 0);
    boot.write('EL TORITO SPECIFICATION', 7, 'latin1');
    boot.writeUInt32LE(catalogLba, 0x47);
  }
  descriptor(withBootRecord ? 18 : 17, 255);
  catalog(b.subarray(CATALOG_LBA * SECTOR, (CATALOG_LBA + 1) * SECTOR));
  return b;
}

/** Validation entry for `platform` (header 1, signature 55 AA) and a default entry. */
function validation(c: Buffer, platform: number, defaultBootable: boolean): void {
  c[0] = 1;
  c[1] = platform;
  c[0x1e] = 0x55;
  c[0x1f] = 0xaa;
  c[32] = defaultBootable ? 0x88 : 0;
}

function section(c: Buffer, at: number, last: boolean, platform: number, entries: number[]): number {
  c[at] = last ? 0x91 : 0x90;
  c[at + 1] = platform;
  c.writeUInt16LE(entries.filter((e) => e !== 0x44).length, at + 2);
  entries.forEach((e, i) => (c[at + 32 + i * 32] = e));
  return at + 32 + entries.length * 32;
}

const read = (b: Buffer) => (offset: number, length: number) => Promise.resolve(b.subarray(offset, offset + length));

describe('readBootCatalog', () => {
  it('x86_64 as CoreOS lays it out: BIOS default entry, then a UEFI section', async () => {
    const b = image((c) => {
      validation(c, 0x00, true);
      section(c, 64, true, 0xef, [0x88]);
    });
    expect(await readBootCatalog(read(b), b.length)).toEqual({ offset: CATALOG_LBA * SECTOR, platforms: [0, 0xef] });
  });

  it('aarch64: a UEFI default entry only', async () => {
    const b = image((c) => validation(c, 0xef, true));
    expect(await readBootCatalog(read(b), b.length)).toEqual({ offset: CATALOG_LBA * SECTOR, platforms: [0xef] });
  });

  it('ignores non-bootable and extension entries, and reads every section up to the last', async () => {
    const b = image((c) => {
      validation(c, 0x00, false);
      const next = section(c, 64, false, 0x02, [0x00, 0x44]);
      section(c, next, true, 0xef, [0x44, 0x88]);
    });
    expect((await readBootCatalog(read(b), b.length))?.platforms).toEqual([0xef]);
  });

  it.each<[string, Buffer]>([
    ['no boot record', image((c) => validation(c, 0xef, true), CATALOG_LBA, false)],
    ['a catalog pointer past the end', image((c) => validation(c, 0xef, true), 9999)],
    [
      'a validation entry without 55 AA',
      image((c) => {
        validation(c, 0xef, true);
        c.fill(0, 0x1e, 0x20);
      }),
    ],
  ])('%s: no catalog', async (_name, b) => {
    expect(await readBootCatalog(read(b), b.length)).toBeUndefined();
  });
});
