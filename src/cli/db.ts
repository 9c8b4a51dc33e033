// `bootsmith db export|import`: moving the core's InfraEnvs, hosts, events and signing keys
// between databases as JSON (src/core/db/dump.ts).
//
//   export [--pglite] [--out FILE]  the configured database (DATABASE_URL, or the embedded server
//                                   in DATA_DIR), or with --pglite the PGlite-era DATA_DIR/db;
//                                   to FILE (written 0600: it holds pull secrets) or stdout
//   import FILE                     into the configured database, in one transaction
//
// Run it while `bootsmith serve` is stopped when the database is the embedded one (the
// server in DATA_DIR belongs to one process at a time).
import { readFile, rename, writeFile } from 'node:fs/promises';
import { pino } from 'pino';
import { commandConfig } from './command-config.js';
import { exportDump, importDump, parseDump } from '../core/db/dump.js';
import { migrate } from '../core/db/migrations.js';
import { pgliteDir } from '../core/db/pglite-era.js';
import { openDatabase } from '../core/db/sql.js';
import { describeError } from '../errors.js';
import type { CliIo } from './images.js';
import { openPgliteCopy } from './pglite-source.js';

export const DB_USAGE = `  bootsmith db export [--pglite] [--out FILE]
  bootsmith db import FILE`;

export async function dbCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const outIndex = rest.indexOf('--out');
  const out = outIndex >= 0 ? rest[outIndex + 1] : undefined;
  const flags = rest.filter((_, i) => outIndex < 0 || (i !== outIndex && i !== outIndex + 1));
  const usage = () => {
    io.stderr.write(`usage:\n${DB_USAGE}\n`);
    return 2;
  };
  if (outIndex >= 0 && !out) return usage();
  const config = commandConfig(io);
  if (config === 2) return 2;
  const logger = pino({ level: io.env.LOG_LEVEL || 'silent', base: { service: 'bootsmith' } }, pino.destination(2));
  const configured = () =>
    openDatabase({
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      dataDir: config.dataDir,
      logger,
      embeddedPostgresUser: config.embeddedPostgresUser,
    });
  try {
    if (sub === 'export' && flags.every((f) => f === '--pglite')) {
      const source = flags.includes('--pglite') ? await openPgliteCopy(pgliteDir(config.dataDir)) : await configured();
      let text: string;
      try {
        text = `${JSON.stringify(await exportDump(source), null, 2)}\n`;
      } finally {
        await source.close();
      }
      if (out) {
        await writeFile(`${out}.tmp`, text, { mode: 0o600 });
        await rename(`${out}.tmp`, out);
      } else {
        io.stdout.write(text);
      }
      return 0;
    }
    if (sub === 'import' && flags.length === 1 && !flags[0]!.startsWith('--')) {
      const dump = parseDump(await readFile(flags[0]!, 'utf8'));
      const db = await configured();
      try {
        await migrate(db);
        const added = await importDump(db, dump);
        io.stdout.write(
          `${Object.entries(added)
            .map(([t, n]) => `${t}: ${n} added`)
            .join(', ')}\n`,
        );
      } finally {
        await db.close();
      }
      return 0;
    }
  } catch (err) {
    io.stderr.write(`bootsmith: ${describeError(err)}\n`);
    return 1;
  }
  return usage();
}
