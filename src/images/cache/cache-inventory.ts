// What `bootsmith images list` reports: for each configured image, what DATA_DIR/images holds
// for it (verified, in place, partly downloaded, missing, ...), from the persisted records and
// file sizes only — nothing is hashed, parsed or downloaded — plus the files that belong to no
// configured image.
import { readFile } from 'node:fs/promises';
import { statIfExists } from '../../fs/atomic-file.js';
import { CacheFiles, cacheName, imagesDirOf } from './cache-layout.js';
import { scanCache } from './cache-scan.js';
import { fileMismatch, readRecord, recordMismatch } from './cache-record.js';
import { type OsImageEntry, redactUrl } from '../os-images-config.js';
import { originOf } from '../fetch/origin.js';
import { defaultImageStoreSettings } from '../store-settings.js';

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
  const settings = defaultImageStoreSettings().sources;
  const items: InventoryItem[] = [];
  const owned: CacheFiles[] = [];
  for (const entry of entries) {
    const files = new CacheFiles(dir, cacheName(entry));
    owned.push(files);
    const base = {
      openshiftVersion: entry.openshiftVersion,
      cpuArchitecture: entry.cpuArchitecture,
      version: entry.version,
      source: redactUrl(entry.url),
    };
    let origin;
    try {
      origin = originOf(entry.url, settings);
    } catch {
      items.push({ ...base, state: 'missing' });
      continue;
    }
    const inPlacePath = origin.kind === 'local' && !origin.zip ? origin.path : undefined;
    items.push({ ...base, ...(await inspectOne(entry, files, inPlacePath)) });
  }
  const { unreferenced } = await scanCache(dir, owned, { tidy: false });
  return { dir, items, unreferenced };
}

async function inspectOne(
  entry: OsImageEntry,
  files: CacheFiles,
  inPlacePath: string | undefined,
): Promise<Omit<InventoryItem, 'openshiftVersion' | 'cpuArchitecture' | 'version' | 'source'>> {
  const path = inPlacePath ?? files.iso;
  const st = await statIfExists(path);
  const record = await readRecord(files.record);
  if (st) {
    const trusted =
      record && record.iso.path === path && !recordMismatch(record, entry) && !fileMismatch(record.iso, st);
    if (!trusted || !record) return { state: 'unverified', path, size: st.size };
    const minimal = record.minimal && (await statIfExists(record.minimal.path));
    return {
      state: inPlacePath ? 'verified-in-place' : 'verified',
      path,
      size: st.size,
      sha256: record.iso.sha256,
      minimalIso: minimal && !fileMismatch(record.minimal!, minimal) ? 'ready' : 'none',
      verifiedAt: record.verifiedAt,
      ...(record.lastServedAt ? { lastServedAt: record.lastServedAt } : {}),
    };
  }
  if (inPlacePath) return { state: 'missing', path };
  if (await statIfExists(files.zip)) return { state: 'zip-downloaded', path: files.zip };
  for (const part of [files.isoPart, files.zipPart]) {
    const partStat = await statIfExists(part);
    if (!partStat) continue;
    const total = await partTotal(part);
    return {
      state: 'partial',
      path: part,
      partBytes: partStat.size,
      ...(total !== undefined ? { partTotal: total } : {}),
    };
  }
  return { state: 'missing' };
}

async function partTotal(part: string): Promise<number | undefined> {
  try {
    const info = JSON.parse(await readFile(CacheFiles.partInfo(part), 'utf8')) as { total?: unknown };
    return typeof info.total === 'number' ? info.total : undefined;
  } catch {
    return undefined;
  }
}
