// The El Torito boot catalog of an ISO 9660 image: which firmware platforms it has a bootable
// entry for (0x00 x86 BIOS, 0xEF UEFI; 0x01 PowerPC and 0x02 Mac are never used by CoreOS).
// CoreOS's layouts differ here: x86_64 has a BIOS (isolinux) and a UEFI entry, aarch64 a UEFI
// entry only, ppc64le no catalog at all (IEEE-1275 firmware reads ppc/bootinfo.txt), s390x one
// "BIOS" entry that is images/cdboot.img.
//
// Does: find the boot record volume descriptor (from sector 16 to the set terminator, at most
// MAX_DESCRIPTORS), read the catalog's sector, walk the validation entry, the default entry and the
// section headers with their entries (extension entries skipped). A catalog that is not one is no
// catalog (undefined): the caller only draws conclusions from a well-formed one.
// Does NOT: read boot images, or decide an architecture (live-layout.ts, layout-arch.ts).
import { SECTOR_SIZE } from './directory-record.js';

const FIRST_DESCRIPTOR_LBA = 16;
/** Volume descriptors looked at before giving up on finding the boot record. */
const MAX_DESCRIPTORS = 32;
const EL_TORITO_ID = 'EL TORITO SPECIFICATION';
const BOOTABLE = 0x88;
/** An extension entry continues the entry before it (it counts as none). */
const EXTENSION = 0x44;

export interface BootCatalog {
  /** Byte offset of the catalog in the image. */
  offset: number;
  /** Platform IDs with at least one bootable entry, in catalog order. */
  platforms: number[];
}

export type ReadAt = (offset: number, length: number, what: string) => Promise<Buffer>;

export async function readBootCatalog(readAt: ReadAt, size: number): Promise<BootCatalog | undefined> {
  for (let i = 0; i < MAX_DESCRIPTORS; i++) {
    const at = (FIRST_DESCRIPTOR_LBA + i) * SECTOR_SIZE;
    if (at + SECTOR_SIZE > size) return undefined;
    const d = await readAt(at, SECTOR_SIZE, 'a volume descriptor');
    if (d.toString('latin1', 1, 6) !== 'CD001') return undefined;
    if (d[0] === 255) return undefined;
    if (d[0] !== 0 || d.toString('latin1', 7, 7 + EL_TORITO_ID.length) !== EL_TORITO_ID) continue;
    const offset = d.readUInt32LE(0x47) * SECTOR_SIZE;
    if (offset === 0 || offset + SECTOR_SIZE > size) return undefined;
    return parseCatalog(await readAt(offset, SECTOR_SIZE, 'the El Torito boot catalog'), offset);
  }
  return undefined;
}

function parseCatalog(c: Buffer, offset: number): BootCatalog | undefined {
  if (c[0] !== 1 || c[0x1e] !== 0x55 || c[0x1f] !== 0xaa) return undefined;
  const platforms: number[] = [];
  const add = (platform: number, entry: number): void => {
    if (c[entry] === BOOTABLE && !platforms.includes(platform)) platforms.push(platform);
  };
  add(c[1]!, 32); // the default entry belongs to the validation entry's platform
  let at = 64;
  while (at + 32 <= c.length && (c[at] === 0x90 || c[at] === 0x91)) {
    const last = c[at] === 0x91;
    const platform = c[at + 1]!;
    let count = c.readUInt16LE(at + 2);
    at += 32;
    while (at + 32 <= c.length && (count > 0 || c[at] === EXTENSION)) {
      if (c[at] !== EXTENSION) {
        add(platform, at);
        count--;
      }
      at += 32;
    }
    if (last) break;
  }
  return { offset, platforms };
}
