// What `bootsmith images list` reports: for each configured image, what DATA_DIR/images holds
// for it (verified, in place, partly downloaded, missing, ...), from the persisted records and
// file sizes only — nothing is hashed, parsed or downloaded — plus the files that belong to no
// configured image. Files are content-keyed (src/images/cache/cache-layout.ts): entries naming one
// source, or sources whose ISOs are the same bytes, show the same `sha256-<hex>.iso`; a cache of
// the layout before content keying shows as verified (the service adopts it at start).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { statIfExists } from '../../fs/atomic-file.js';
import { CacheFiles, LegacyFiles, cacheName, imagesDirOf, legacyNames, recordedContentNames } from './cache-layout.js';
import { scanCache } from './cache-scan.js';
import { type CacheRecord, fileMismatch, readRecord, recordMismatch } from './cache-record.js';
import { type OsImageEntry, describeSource } from '../os-images-config.js';

export type CacheState =
  /** Verified and recorded: served without any work at start. */
  | 'verified'
  /** A local file used in place, verified and recorded. */
  | 'verified-in-place'
  /** Present but not (or no longer) matching its record: verified again at start. */
  | 'unverified'
  /** A download stopped part way: resumed at start. */
  | 'partial'
  /** A downloaded zip whose ISO is not extracted yet. */
  | 'zip-downloaded'
  /** Nothing yet (or a local file that does not exist). */
  | 'missing';

export interface InventoryItem {
  openshiftVersion: string;
  cpuArchitecture: string;
  version: string;
  source: string;
  state: CacheState;
  path?: string;
  size?: number;
  sha256?: string;
  /** Bytes of the .part so far, and the size the remote announced. */
  partBytes?: number;
  partTotal?: number;
  minimalIso?: 'ready' | 'none';
  verifiedAt?: string;
  lastServedAt?: string;
}

export interface Inventory {
  dir: string;
  items: InventoryItem[];
  /** Files in the cache directory that belong to no configured image. */
  unreferenced: Array<{ file: string; bytes: number }>;
}

export async function inspectCache(entries: readonly OsImageEntry[], dataDir: string): Promise<Inventory> {
  const dir = imagesDirOf(dataDir);
  const items: InventoryItem[] = [];
  const owned: Array<{ owns(name: string): boolean }> = [];
  for (const entry of entries) {
    const files = new CacheFiles(dir, cacheName(entry));
    const base = {
      openshiftVersion: entry.openshiftVersion,
      cpuArchitecture: entry.cpuArchitecture,
      version: entry.version,
      source: describeSource(entry),
    };
    const local = localPath(entry);
    // a block device is copied into the cache (src/images/fetch/local-image.ts), not used in place
    const inPlacePath = local !== undefined && (await statIfExists(local))?.isBlockDevice() ? undefined : local;
    const { item, record, legacy } = await inspectOne(entry, files, inPlacePath);
    items.push({ ...base, ...item });
    const content = record ? recordedContentNames(record) : [];
    owned.push({
      owns: (name) => files.owns(name) || content.includes(name) || (legacy?.owns(name) ?? false),
    });
  }
  const { unreferenced } = await scanCache(dir, owned, { tidy: false });
  return { dir, items, unreferenced };
}

/** The path of a local ISO used in place (not a zip); undefined for every other source. */
function localPath(entry: OsImageEntry): string | undefined {
  const url = entry.url;
  if (url === undefined || !(url.startsWith('/') || url.startsWith('file://'))) return undefined;
  let file: string;
  try {
    file = url.startsWith('/') ? url : fileURLToPath(url);
  } catch {
    return undefined;
  }
  return file.toLowerCase().endsWith('.zip') ? undefined : file;
}

/** This source's record, or the record of its files in the layout before content keying (adopted at start). */
async function recordOf(
  entry: OsImageEntry,
  files: CacheFiles,
): Promise<{ record: CacheRecord | undefined; legacy?: LegacyFiles }> {
  const record = await readRecord(files.record);
  if (record) {
    if (record.inPlace) return { record };
    const inDir = (p: string) => path.join(files.dir, path.basename(p));
    return {
      record: {
        ...record,
        iso: { ...record.iso, path: inDir(record.iso.path) },
        ...(record.minimal ? { minimal: { ...record.minimal, path: inDir(record.minimal.path) } } : {}),
      },
    };
  }
  for (const name of legacyNames([entry])) {
    const legacy = new LegacyFiles(files.dir, name);
    const old = await readRecord(legacy.record);
    if (old && !old.inPlace)
      return {
        record: {
          ...old,
          iso: { ...old.iso, path: legacy.iso },
          ...(old.minimal ? { minimal: { ...old.minimal, path: legacy.minimal } } : {}),
        },
        legacy,
      };
  }
  return { record: undefined };
}

async function inspectOne(
  entry: OsImageEntry,
  files: CacheFiles,
  inPlacePath: string | undefined,
): Promise<{
  item: Omit<InventoryItem, 'openshiftVersion' | 'cpuArchitecture' | 'version' | 'source'>;
  record: CacheRecord | undefined;
  legacy: LegacyFiles | undefined;
}> {
  const { record, legacy } = await recordOf(entry, files);
  const found = { record, legacy };
  const path = inPlacePath ?? record?.iso.path;
  const st = path === undefined ? undefined : await statIfExists(path);
  if (st && path !== undefined) {
    const trusted =
      record && record.iso.path === path && !recordMismatch(record, entry) && !fileMismatch(record.iso, st);
    if (!trusted || !record) return { ...found, item: { state: 'unverified', path, size: st.size } };
    const minimal = record.minimal && (await statIfExists(record.minimal.path));
    return {
      ...found,
      item: {
        state: inPlacePath ? 'verified-in-place' : 'verified',
        path,
        size: st.size,
        sha256: record.iso.sha256,
        minimalIso: minimal && !fileMismatch(record.minimal!, minimal) ? 'ready' : 'none',
        verifiedAt: record.verifiedAt,
        ...(record.lastServedAt ? { lastServedAt: record.lastServedAt } : {}),
      },
    };
  }
  if (inPlacePath) return { ...found, item: { state: 'missing', path: inPlacePath } };
  if (await statIfExists(files.zip)) return { ...found, item: { state: 'zip-downloaded', path: files.zip } };
  for (const part of [files.isoPart, files.zipPart]) {
    const partStat = await statIfExists(part);
    if (!partStat) continue;
    const total = await partTotal(part);
    return {
      ...found,
      item: {
        state: 'partial',
        path: part,
        partBytes: partStat.size,
        ...(total !== undefined ? { partTotal: total } : {}),
      },
    };
  }
  return { ...found, item: { state: 'missing' } };
}

async function partTotal(part: string): Promise<number | undefined> {
  try {
    const info = JSON.parse(await readFile(CacheFiles.partInfo(part), 'utf8')) as { total?: unknown };
    return typeof info.total === 'number' ? info.total : undefined;
  } catch {
    return undefined;
  }
}
