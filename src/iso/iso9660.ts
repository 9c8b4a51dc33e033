// Read-only access to an ISO 9660 image through a FileHandle: the Primary Volume Descriptor, the
// directory tree, path lookup and bounded reads of file extents.
//
// Does: read the volume descriptor set from sector 16 up to the terminator (type 255), use the
// Primary Volume Descriptor only (as coreos-installer does), list directories with ISO names
// (`;1` and trailing `.` stripped) and Rock Ridge names, resolve friendly paths such as
// `coreos/igninfo.json` against full-length, 8.3 (`COREOS/IGNINFO.JSO`) or Rock Ridge names,
// merge multi-extent files whose extents are contiguous, and check extents against the file size.
// Everything one image makes the parser read is charged to its ParseBudget
// (src/iso/parse-budget.ts): directory bytes and records, Rock Ridge bytes, time.
// All offsets are LBA x 2048 in JS numbers (exact far beyond any ISO); no 32-bit math.
// Does NOT: read Joliet or El Torito, follow Rock Ridge relocation, support interleaved files or
// non-contiguous multi-extent files (FormatError), write anything, or read whole images.

import { open } from 'node:fs/promises';

import { FormatError, withContext } from '../errors.js';
import type { Extent } from './manifest.js';
import {
  directoryRecords,
  FLAG_DIRECTORY,
  FLAG_MULTI_EXTENT,
  isSelfOrParent,
  SECTOR_SIZE,
  type DirectoryRecord,
} from './directory-record.js';
import { decodeIsoName, matchRank, pathComponents } from './iso-names.js';
import { DirectoryCharge, ParseBudget, type ParseBudgetLimits } from './parse-budget.js';
import { type PositionalReader, readExactly } from './read-range.js';
import { rockRidgeName, suspSkipLength } from './rock-ridge.js';
import {
  descriptorType,
  parsePrimaryVolumeDescriptor,
  TYPE_PRIMARY,
  TYPE_TERMINATOR,
  type PrimaryVolumeDescriptor,
} from './volume-descriptor.js';

export { SECTOR_SIZE } from './directory-record.js';

const FIRST_DESCRIPTOR_LBA = 16;
/** Real images have a handful of descriptors; give up long before reading the whole file. */
const MAX_DESCRIPTORS = 64;
/** Directories of real images are a few sectors; refuse to buffer absurd ones. */
const MAX_DIRECTORY_BYTES = 16 * 1024 * 1024;
const MAX_DEPTH = 64;

/** One directory entry: a file or directory and the bytes of the image it occupies. */
export interface IsoEntry extends Extent {
  /** The Rock Ridge name when present, otherwise the ISO 9660 name. */
  name: string;
  /** ISO 9660 name with `;1` and a trailing `.` stripped, e.g. `IGNINFO.JSO`. */
  isoName: string;
  rockRidgeName?: string;
  isDirectory: boolean;
}

/** An entry found by `walk`, with its path from the root built from entry names. */
export interface WalkEntry {
  path: string;
  entry: IsoEntry;
}

export class IsoFs {
  private readonly listings = new Map<number, IsoEntry[]>();

  private constructor(
    /** Path of the image, for messages. */
    readonly path: string,
    private readonly fh: PositionalReader,
    private readonly ownsHandle: boolean,
    /** Size of the image file in bytes. */
    readonly size: number,
    readonly primary: PrimaryVolumeDescriptor,
    private readonly rootEntry: IsoEntry,
    /** SUSP skip length, or undefined when the image has no Rock Ridge. */
    private readonly suspSkip: number | undefined,
    /** What this image may still make the parser read. */
    readonly budget: ParseBudget,
  ) {}

  /** Opens and parses `path`; the caller must `close()` the result. */
  static async open(path: string, limits: Partial<ParseBudgetLimits> = {}): Promise<IsoFs> {
    const fh = await withContext(
      `opening ISO image ${path}`,
      () => open(path, 'r'),
      (message, cause) => new FormatError(message, { path }, { cause }),
    );
    try {
      return await IsoFs.fromHandle(fh, path, true, limits);
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** Parses an image from an open handle; `close()` closes the handle only when `ownsHandle`. */
  static async fromHandle(
    fh: PositionalReader,
    path: string,
    ownsHandle = false,
    limits: Partial<ParseBudgetLimits> = {},
  ): Promise<IsoFs> {
    const budget = new ParseBudget(limits, path);
    const size = (await fh.stat()).size;
    const primary = await readPrimaryVolumeDescriptor(fh, path, size);
    const rootEntry = entryFromRecord(primary.root, '.', undefined);
    const suspSkip = await detectSusp(fh, path, size, rootEntry);
    return new IsoFs(path, fh, ownsHandle, size, primary, rootEntry, suspSkip, budget);
  }

  get volumeId(): string {
    return this.primary.volumeId;
  }

  /** Whether the image carries Rock Ridge (SUSP) entries. */
  get hasRockRidge(): boolean {
    return this.suspSkip !== undefined;
  }

  root(): IsoEntry {
    return this.rootEntry;
  }

  async close(): Promise<void> {
    if (this.ownsHandle) await this.fh.close();
  }

  /** Reads exactly `length` bytes at absolute `offset`; FormatError when the file is too short. */
  async readAt(offset: number, length: number, what = 'data'): Promise<Buffer> {
    return readExactly(this.fh, this.path, this.size, offset, length, what);
  }

  /** Reads a whole file; FormatError when it is a directory or larger than `maxBytes`. */
  async readFile(entry: IsoEntry, maxBytes: number): Promise<Buffer> {
    if (entry.isDirectory) throw this.error(`reading ${entry.name}`, 'it is a directory');
    if (entry.length > maxBytes) {
      throw this.error(`reading ${entry.name}`, `file is ${entry.length} bytes, more than the ${maxBytes} expected`);
    }
    this.assertInside(entry, entry.name);
    return this.readAt(entry.offset, entry.length, entry.name);
  }

  /** FormatError unless the extent lies inside the image file. */
  assertInside(extent: Extent, what: string): void {
    if (extent.offset + extent.length > this.size) {
      throw this.error(
        `locating ${what}`,
        `extent ${extent.offset}+${extent.length} ends beyond the end of the ${this.size}-byte file (truncated image?)`,
      );
    }
  }

  /** Lists a directory (given as an entry or a path) without `.` and `..`. */
  async list(dir: IsoEntry | string): Promise<IsoEntry[]> {
    const entry = typeof dir === 'string' ? await this.lookup(dir) : dir;
    if (entry === undefined) throw this.error(`listing ${String(dir)}`, 'no such directory');
    if (!entry.isDirectory) throw this.error(`listing ${entry.name}`, 'it is not a directory');
    let entries = this.listings.get(entry.offset);
    if (entries === undefined) {
      entries = await this.readDirectory(entry);
      this.listings.set(entry.offset, entries);
    }
    return entries.map((e) => ({ ...e })); // callers may keep or change what they get
  }

  /**
   * Resolves an ISO path (`coreos/igninfo.json`, `/COREOS/IGNINFO.JSO`, ...) component by
   * component; see `matchRank` for how names are compared. Undefined when not found or when an
   * intermediate component is not a directory.
   */
  async lookup(isoPath: string): Promise<IsoEntry | undefined> {
    const components = pathComponents(isoPath);
    let current = this.rootEntry;
    for (const [i, component] of components.entries()) {
      const isLast = i === components.length - 1;
      const candidates = (await this.list(current)).filter((e) => isLast || e.isDirectory);
      const found = bestMatch(candidates, component);
      if (found === undefined) return undefined;
      current = found;
    }
    return current;
  }

  /** Like `lookup`, but FormatError when the path names a directory. */
  async lookupFile(isoPath: string): Promise<IsoEntry | undefined> {
    const entry = await this.lookup(isoPath);
    if (entry?.isDirectory === true) throw this.error(`looking up ${isoPath}`, 'it is a directory, expected a file');
    return entry;
  }

  /** Depth-first walk of the whole tree in on-disk order, directories before their contents. */
  async *walk(): AsyncGenerator<WalkEntry> {
    yield* this.walkDir(this.rootEntry, '', new Set([this.rootEntry.offset]), 0);
  }

  /** The first file (in walk order) whose extent wholly contains `extent`, or undefined. */
  async fileContaining(extent: Extent): Promise<WalkEntry | undefined> {
    for await (const found of this.walk()) {
      const { entry } = found;
      if (entry.isDirectory) continue;
      if (extentContains(entry, extent)) return found;
    }
    return undefined;
  }

  private async *walkDir(dir: IsoEntry, prefix: string, seen: Set<number>, depth: number): AsyncGenerator<WalkEntry> {
    if (depth > MAX_DEPTH) throw this.error(`walking ${prefix}`, `directory tree deeper than ${MAX_DEPTH} levels`);
    this.budget.checkTime();
    for (const entry of await this.list(dir)) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      yield { path, entry };
      if (!entry.isDirectory) continue;
      if (seen.has(entry.offset)) throw this.error(`walking ${path}`, 'directory loop');
      seen.add(entry.offset);
      yield* this.walkDir(entry, path, seen, depth + 1);
    }
  }

  private async readDirectory(dir: IsoEntry): Promise<IsoEntry[]> {
    const doing = `reading directory ${dir.name}`;
    if (dir.length > MAX_DIRECTORY_BYTES)
      throw this.error(doing, `directory of ${dir.length} bytes is implausibly large`);
    this.assertInside(dir, `directory ${dir.name}`);
    this.budget.chargeDirectory(dir.length);
    const buf = await this.readAt(dir.offset, dir.length, `directory ${dir.name}`);
    const records: DirectoryRecord[] = withContext(
      `${doing} of ${this.path}`,
      () => [...directoryRecords(buf)].filter((r) => !isSelfOrParent(r)),
      this.contextError,
    );
    this.budget.chargeRecords(records.length);
    const charge = new DirectoryCharge();
    const entries: IsoEntry[] = [];
    for (const record of records) {
      if (record.fileUnitSize !== 0)
        throw this.error(doing, `interleaved file ${decodeIsoName(record.identifier)} is not supported`);
      entries.push(
        entryFromRecord(record, decodeIsoName(record.identifier), await this.rockRidgeNameOf(record, doing, charge)),
      );
    }
    return mergeMultiExtent(records, entries, (reason) => this.error(doing, reason));
  }

  private async rockRidgeNameOf(
    record: DirectoryRecord,
    doing: string,
    charge: DirectoryCharge,
  ): Promise<string | undefined> {
    const skip = this.suspSkip;
    if (skip === undefined) return undefined;
    const readAt = (o: number, l: number) => this.readAt(o, l, 'Rock Ridge continuation area');
    return withContext(
      `${doing} of ${this.path}`,
      () => rockRidgeName(record.systemUse, skip, readAt, this.budget, charge),
      (message, cause) => (cause instanceof FormatError ? cause : this.contextError(message, cause)),
    );
  }

  /** A FormatError naming this image, for withContext. */
  private readonly contextError = (message: string, cause: unknown): FormatError =>
    new FormatError(message, { path: this.path }, { cause });

  private error(doing: string, reason: string, cause?: unknown): FormatError {
    return new FormatError(
      `${doing} of ${this.path}: ${reason}`,
      { path: this.path },
      cause === undefined ? undefined : { cause },
    );
  }
}

/** Opens an ISO image; the caller must `close()` it. */
export async function openIsoFs(path: string, limits: Partial<ParseBudgetLimits> = {}): Promise<IsoFs> {
  return IsoFs.open(path, limits);
}

/** Opens `path`, runs `fn`, and closes the image whatever happens. */
export async function withIsoFs<T>(
  path: string,
  fn: (iso: IsoFs) => Promise<T>,
  limits: Partial<ParseBudgetLimits> = {},
): Promise<T> {
  const iso = await IsoFs.open(path, limits);
  try {
    return await fn(iso);
  } finally {
    await iso.close();
  }
}

/** Whether `inner` lies wholly inside `outer`. */
export function extentContains(outer: Extent, inner: Extent): boolean {
  return outer.offset <= inner.offset && inner.offset + inner.length <= outer.offset + outer.length;
}

function entryFromRecord(record: DirectoryRecord, isoName: string, rrName: string | undefined): IsoEntry {
  const entry: IsoEntry = {
    name: rrName ?? isoName,
    isoName,
    isDirectory: (record.flags & FLAG_DIRECTORY) !== 0,
    offset: (record.lba + record.extAttrSectors) * SECTOR_SIZE,
    length: record.dataLength,
  };
  if (rrName !== undefined) entry.rockRidgeName = rrName;
  return entry;
}

function bestMatch(entries: IsoEntry[], component: string): IsoEntry | undefined {
  let best: IsoEntry | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  for (const entry of entries) {
    const rank = matchRank(entry, component);
    if (rank !== undefined && rank < bestRank) {
      best = entry;
      bestRank = rank;
    }
  }
  return best;
}

/**
 * Folds each multi-extent file (records flagged "not final" followed by the final one, all with
 * the same identifier) into one entry; only contiguous, sector-aligned extents can be folded.
 */
function mergeMultiExtent(
  records: DirectoryRecord[],
  entries: IsoEntry[],
  fail: (reason: string) => FormatError,
): IsoEntry[] {
  const out: IsoEntry[] = [];
  let open: { entry: IsoEntry; identifier: Buffer } | undefined;
  for (const [i, record] of records.entries()) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const more = (record.flags & FLAG_MULTI_EXTENT) !== 0;
    if (open === undefined) {
      if (more) open = { entry: { ...entry }, identifier: record.identifier };
      else out.push(entry);
      continue;
    }
    if (!open.identifier.equals(record.identifier)) {
      throw fail(`multi-extent file ${open.entry.isoName} is not followed by its next extent`);
    }
    if (open.entry.length % SECTOR_SIZE !== 0 || open.entry.offset + open.entry.length !== entry.offset) {
      throw fail(`multi-extent file ${open.entry.isoName} has non-contiguous extents, which is not supported`);
    }
    open.entry.length += entry.length;
    if (!more) {
      out.push(open.entry);
      open = undefined;
    }
  }
  if (open !== undefined) throw fail(`multi-extent file ${open.entry.isoName} has no final extent`);
  return out;
}

async function readPrimaryVolumeDescriptor(
  fh: PositionalReader,
  path: string,
  size: number,
): Promise<PrimaryVolumeDescriptor> {
  const doing = `reading primary volume descriptor of ${path}`;
  const minimum = (FIRST_DESCRIPTOR_LBA + 1) * SECTOR_SIZE;
  if (size < minimum) {
    throw new FormatError(`${doing}: not an ISO 9660 image (file is ${size} bytes, smaller than ${minimum})`, {
      path,
      size,
    });
  }
  let primary: PrimaryVolumeDescriptor | undefined;
  for (let i = 0; i < MAX_DESCRIPTORS; i++) {
    const offset = (FIRST_DESCRIPTOR_LBA + i) * SECTOR_SIZE;
    if (offset + SECTOR_SIZE > size) {
      throw new FormatError(`${doing}: file ends before the volume descriptor set terminator`, { path, size });
    }
    const sector = await readExactly(fh, path, size, offset, SECTOR_SIZE, `volume descriptor #${i + 1}`);
    const type = withContext(
      `${doing}: ${i === 0 ? 'not an ISO 9660 image' : `volume descriptor #${i + 1}`}`,
      () => {
        const t = descriptorType(sector);
        if (t === TYPE_PRIMARY && primary === undefined) primary = parsePrimaryVolumeDescriptor(sector);
        return t;
      },
      (message, cause) => new FormatError(message, { path }, { cause }),
    );
    if (type === TYPE_TERMINATOR) break;
    if (i === MAX_DESCRIPTORS - 1) {
      throw new FormatError(
        `${doing}: no volume descriptor set terminator in the first ${MAX_DESCRIPTORS} descriptors`,
        { path },
      );
    }
  }
  if (primary === undefined) throw new FormatError(`${doing}: no primary volume descriptor found`, { path });
  if (primary.volumeBytes > size) {
    throw new FormatError(
      `${doing}: ISO image is incomplete: the volume is ${primary.volumeBytes} bytes but the file is ${size} (truncated?)`,
      { path, size, volumeBytes: primary.volumeBytes },
    );
  }
  return primary;
}

/** Reads the root's `.` record and returns the SUSP skip length when the image uses SUSP. */
async function detectSusp(
  fh: PositionalReader,
  path: string,
  size: number,
  root: IsoEntry,
): Promise<number | undefined> {
  const length = Math.min(root.length, SECTOR_SIZE);
  const sector = await readExactly(fh, path, size, root.offset, length, 'root directory');
  return withContext(
    `reading root directory of ${path}`,
    () => {
      const first = directoryRecords(sector).next();
      if (first.done === true || !isSelfOrParent(first.value)) return undefined;
      return suspSkipLength(first.value.systemUse);
    },
    (message, cause) => new FormatError(message, { path }, { cause }),
  );
}
