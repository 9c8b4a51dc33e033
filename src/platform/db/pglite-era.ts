// A DATA_DIR from the PGlite era (bootsmith ≤ 0.1 kept an embedded PGlite cluster in
// DATA_DIR/db): detected so the service can say, once in the log and in /health, how to move
// its InfraEnvs and hosts to the embedded PostgreSQL server. Opening such a cluster is the
// export command's business (src/cli/pglite-source.ts); this module only looks for it.
import { stat } from 'node:fs/promises';
import path from 'node:path';

export function pgliteDir(dataDir: string): string {
  return path.join(dataDir, 'db');
}

/** The operator's instructions when DATA_DIR/db holds a PGlite cluster, else undefined. */
export async function pgliteEraNotice(dataDir: string): Promise<string | undefined> {
  try {
    await stat(path.join(pgliteDir(dataDir), 'PG_VERSION'));
  } catch {
    return undefined;
  }
  return (
    `${pgliteDir(dataDir)} holds a PGlite-era database that this version no longer reads; its InfraEnvs and hosts are not served. ` +
    'Move them with `bootsmith db export --pglite --out dump.json && bootsmith db import dump.json`, then remove that directory.'
  );
}
