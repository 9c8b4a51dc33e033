// Test support: ISO 9660 images written byte by byte, for shapes no ISO writer produces —
// the parser bombs of issue 15 (Rock Ridge continuation chains shared by many records, giant
// names, deep or looping directories, huge extents). Used by tests and the fuzz campaign only.
//
// Does: lay out a Primary Volume Descriptor, a terminator, directory extents (records never span
// sectors, as ECMA-119 requires) and raw sectors, and encode SUSP SP/NM/CE entries.
// Does NOT: write Joliet, El Torito, path tables or anything a real boot needs.

import { SECTOR_SIZE } from '../directory-record.js';

export interface CraftedRecord {
  /** ISO 9660 identifier bytes (`A;1`, or `\0`/`\1` for self/parent). */
  name: Buffer | string;
  lba: number;
  length: number;
  directory?: boolean;
  systemUse?: Buffer;
}

function bothEndian32(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(value >>> 0, 0);
  b.writeUInt32BE(value >>> 0, 4);
  return b;
}

/** One directory record (ECMA-119 9.1). */
export function directoryRecord(r: CraftedRecord): Buffer {
  const name = typeof r.name === 'string' ? Buffer.from(r.name, 'latin1') : r.name;
  const pad = name.length % 2 === 0 ? 1 : 0;
  const su = r.systemUse ?? Buffer.alloc(0);
  let length = 33 + name.length + pad + su.length;
  if (length % 2 === 1) length += 1;
  if (length > 255) throw new Error(`crafted record of ${length} bytes does not fit`);
  const b = Buffer.alloc(length);
  b[0] = length;
  bothEndian32(r.lba).copy(b, 2);
  bothEndian32(r.length).copy(b, 10);
  b[25] = r.directory === true ? 0x02 : 0;
  b.writeUInt16LE(1, 28);
  b.writeUInt16BE(1, 30);
  b[32] = name.length;
  name.copy(b, 33);
  su.copy(b, 33 + name.length + pad);
  return b;
}

/** SUSP `SP` entry (in the root's `.` record) with skip length 0. */
export function spEntry(): Buffer {
  return Buffer.from([0x53, 0x50, 7, 1, 0xbe, 0xef, 0]);
}

/** Rock Ridge `NM` entry; `more` sets CONTINUE (the name goes on in the next NM). */
export function nmEntry(part: Buffer | string, more: boolean): Buffer {
  const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part;
  if (bytes.length > 250) throw new Error('NM piece too long');
  return Buffer.concat([Buffer.from([0x4e, 0x4d, 5 + bytes.length, 1, more ? 1 : 0]), bytes]);
}

/** SUSP `CE` entry pointing at `length` bytes at `offset` of block `block`. */
export function ceEntry(block: number, offset: number, length: number): Buffer {
  return Buffer.concat([
    Buffer.from([0x43, 0x45, 28, 1]),
    bothEndian32(block),
    bothEndian32(offset),
    bothEndian32(length),
  ]);
}

/** Lays out sectors; LBAs 0-17 are the system area, the PVD and the terminator. */
export class CraftedIso {
  private readonly sectors = new Map<number, Buffer>();
  private next = 18;

  /** Reserves `bytes` (rounded up to sectors) and returns the first LBA. */
  allocate(bytes: number): number {
    const lba = this.next;
    this.next += Math.max(1, Math.ceil(bytes / SECTOR_SIZE));
    return lba;
  }

  /** Writes `data` at `lba` (it may span several sectors). */
  put(lba: number, data: Buffer): void {
    for (let i = 0; i * SECTOR_SIZE < data.length; i++) {
      const sector = Buffer.alloc(SECTOR_SIZE);
      data.copy(sector, 0, i * SECTOR_SIZE, (i + 1) * SECTOR_SIZE);
      this.sectors.set(lba + i, sector);
    }
  }

  /** Packs records into whole sectors (a record never spans a sector boundary). */
  static directoryExtent(records: Buffer[]): Buffer {
    const out: Buffer[] = [];
    let sector = Buffer.alloc(SECTOR_SIZE);
    let pos = 0;
    for (const r of records) {
      if (pos + r.length > SECTOR_SIZE) {
        out.push(sector);
        sector = Buffer.alloc(SECTOR_SIZE);
        pos = 0;
      }
      r.copy(sector, pos);
      pos += r.length;
    }
    out.push(sector);
    return Buffer.concat(out);
  }

  /**
   * Writes a directory at `lba` holding `.` (with `selfSystemUse`), `..` and `records`; returns
   * its length in bytes. `parentLba`/`parentLength` default to the directory itself (the root).
   */
  putDirectory(
    lba: number,
    records: Buffer[],
    options: { selfSystemUse?: Buffer; parentLba?: number; parentLength?: number } = {},
  ): number {
    const probe = CraftedIso.directoryExtent([
      directoryRecord({ name: '\0', lba, length: 0, directory: true }),
      ...records,
    ]);
    const length = probe.length + (options.selfSystemUse ? SECTOR_SIZE : 0);
    const self = directoryRecord({
      name: '\0',
      lba,
      length,
      directory: true,
      ...(options.selfSystemUse ? { systemUse: options.selfSystemUse } : {}),
    });
    const parent = directoryRecord({
      name: '\x01',
      lba: options.parentLba ?? lba,
      length: options.parentLength ?? length,
      directory: true,
    });
    const extent = CraftedIso.directoryExtent([self, parent, ...records]);
    const padded = Buffer.alloc(length);
    extent.copy(padded, 0, 0, Math.min(extent.length, length));
    this.put(lba, padded);
    return length;
  }

  /** The image bytes: system area, PVD (root at `rootLba`, `rootLength` bytes), terminator, sectors. */
  build(rootLba: number, rootLength: number, volumeId = 'CRAFTED'): Buffer {
    const total = Math.max(this.next, ...[...this.sectors.keys()].map((l) => l + 1));
    const image = Buffer.alloc(total * SECTOR_SIZE);
    const pvd = image.subarray(16 * SECTOR_SIZE, 17 * SECTOR_SIZE);
    pvd[0] = 1;
    pvd.write('CD001', 1, 'latin1');
    pvd[6] = 1;
    pvd.write(volumeId.padEnd(32, ' '), 40, 'latin1');
    bothEndian32(total).copy(pvd, 80);
    pvd.writeUInt16LE(SECTOR_SIZE, 128);
    pvd.writeUInt16BE(SECTOR_SIZE, 130);
    directoryRecord({ name: '\0', lba: rootLba, length: rootLength, directory: true }).copy(pvd, 156);
    const term = image.subarray(17 * SECTOR_SIZE, 18 * SECTOR_SIZE);
    term[0] = 255;
    term.write('CD001', 1, 'latin1');
    term[6] = 1;
    for (const [lba, sector] of this.sectors) sector.copy(image, lba * SECTOR_SIZE);
    return image;
  }
}

export interface ChainBombOptions {
  /** Directory records sharing the chain. */
  records: number;
  /** Continuation areas in the chain (all shared by every record). */
  chainLength: number;
  /** Bytes of each continuation area: NM pieces, then a CE to the next area. */
  areaBytes: number;
}

/**
 * The Rock Ridge continuation bomb of issue 15: `records` records in the root, each pointing with
 * CE at the same chain of continuation areas, each full of NM pieces with CONTINUE set. An
 * unbounded parser decodes chainLength x areaBytes of name for every record.
 */
export function rockRidgeChainBomb(o: ChainBombOptions): Buffer {
  const iso = new CraftedIso();
  const areaSectors = Math.ceil(o.areaBytes / SECTOR_SIZE);
  const areaLbas = Array.from({ length: o.chainLength }, () => iso.allocate(areaSectors * SECTOR_SIZE));
  for (const [i, lba] of areaLbas.entries()) {
    const pieces: Buffer[] = [];
    let used = 0;
    while (used + 255 + 28 <= o.areaBytes) {
      const piece = nmEntry('x'.repeat(250), true);
      pieces.push(piece);
      used += piece.length;
    }
    const next = areaLbas[i + 1];
    if (next !== undefined) pieces.push(ceEntry(next, 0, o.areaBytes));
    iso.put(lba, Buffer.concat(pieces));
  }
  const first = areaLbas[0] ?? 0;
  const records = Array.from({ length: o.records }, (_, i) =>
    directoryRecord({
      name: `F${i.toString(36).toUpperCase()};1`,
      lba: first,
      length: 0,
      systemUse: ceEntry(first, 0, o.areaBytes),
    }),
  );
  const probe = CraftedIso.directoryExtent(records);
  const root = iso.allocate(probe.length + 2 * SECTOR_SIZE);
  const rootLength = iso.putDirectory(root, records, { selfSystemUse: spEntry() });
  return iso.build(root, rootLength);
}

/** A chain of `depth` nested directories (`D/D/D/...`), or a directory containing itself with `loop`. */
export function deepDirectoryBomb(depth: number, loop = false): Buffer {
  const iso = new CraftedIso();
  const lbas = Array.from({ length: depth + 1 }, () => iso.allocate(SECTOR_SIZE));
  for (let i = depth; i >= 0; i--) {
    const lba = lbas[i]!;
    const child = loop && i === depth ? lbas[0]! : lbas[i + 1];
    const records =
      child === undefined ? [] : [directoryRecord({ name: 'D', lba: child, length: SECTOR_SIZE, directory: true })];
    iso.putDirectory(lba, records, { parentLba: lbas[Math.max(0, i - 1)]!, parentLength: SECTOR_SIZE });
  }
  return iso.build(lbas[0]!, SECTOR_SIZE);
}

/** A root whose `coreos/igninfo.json` (or any file) claims an extent far beyond the image. */
export function hugeExtentIso(lba: number, length: number): Buffer {
  const iso = new CraftedIso();
  const root = iso.allocate(SECTOR_SIZE);
  const coreos = iso.allocate(SECTOR_SIZE);
  iso.putDirectory(coreos, [directoryRecord({ name: 'IGNINFO.JSON;1', lba, length })], {
    parentLba: root,
    parentLength: SECTOR_SIZE,
  });
  iso.putDirectory(root, [directoryRecord({ name: 'COREOS', lba: coreos, length: SECTOR_SIZE, directory: true })]);
  return iso.build(root, SECTOR_SIZE);
}

/** `count` records in the root with inline System Use areas of `suBytes` each (NM pieces). */
export function wideSuspIso(count: number, suBytes: number): Buffer {
  const iso = new CraftedIso();
  const su = nmEntry('n'.repeat(Math.min(200, suBytes - 5)), false);
  const records = Array.from({ length: count }, (_, i) =>
    directoryRecord({ name: `F${i.toString(36).toUpperCase()};1`, lba: 18, length: 0, systemUse: su }),
  );
  const probe = CraftedIso.directoryExtent(records);
  const root = iso.allocate(probe.length + 2 * SECTOR_SIZE);
  const rootLength = iso.putDirectory(root, records, { selfSystemUse: spEntry() });
  return iso.build(root, rootLength);
}
