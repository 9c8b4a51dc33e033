// Taking stock of ${DATA_DIR}/images at start: which files belong to which configured image
// (and how many bytes each holds), which belong to none (unreferenced: removed first when the
// disk budget needs room), and removing temp files of atomic writes a crash cut short, ours
// (src/fs/atomic-file.ts) or the miniso library's (`.<name>.<pid>.<hex>.tmp`).
// Files in the quarantine folder (src/images/cache/quarantine.ts) count as unreferenced, named
// `quarantine/<name>`, so the disk budget removes them first.
// With `tidy` (the store at start) it also creates the directory when missing; without it
// (`bootsmith images list`) it changes nothing and reports temp files as unreferenced.
// It decides nothing about the budget.
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { isTempFile, removeFiles } from '../../fs/atomic-file.js';
import type { CacheFiles } from './cache-layout.js';
import { QUARANTINE_DIR_NAME } from './quarantine.js';

export interface CacheScan {
  /** Bytes on disk per owner, in the order of `owners`. */
  ownedBytes: number[];
  unreferenced: Array<{ file: string; bytes: number }>;
}

export async function scanCache(
  dir: string,
  owners: ReadonlyArray<CacheFiles | undefined>,
  { tidy }: { tidy: boolean },
): Promise<CacheScan> {
  if (tidy) await mkdir(dir, { recursive: true });
  const ownedBytes = owners.map(() => 0);
  const unreferenced: CacheScan['unreferenced'] = [];
  const files = tidy ? await readdir(dir) : await readdir(dir).catch(() => [] as string[]);
  const quarantined = await readdir(path.join(dir, QUARANTINE_DIR_NAME)).catch(() => [] as string[]);
  for (const file of [...files, ...quarantined.map((name) => path.join(QUARANTINE_DIR_NAME, name))]) {
    if (tidy && (isTempFile(file) || /^\..*\.tmp$/.test(path.basename(file)))) {
      await removeFiles(path.join(dir, file));
      continue;
    }
    const st = await stat(path.join(dir, file)).catch(() => undefined);
    if (!st?.isFile()) continue;
    const owner = file.startsWith(`${QUARANTINE_DIR_NAME}/`) ? -1 : owners.findIndex((files) => files?.owns(file));
    if (owner >= 0) ownedBytes[owner]! += st.size;
    else unreferenced.push({ file, bytes: st.size });
  }
  return { ownedBytes, unreferenced };
}
