// `bootsmith db export|import`: moving the core's InfraEnvs, BMC records, hosts, events and
// signing keys between databases as JSON (src/platform/db/dump.ts, the wings' tables as
// src/service-database.ts lists them).
//
//   export [--pglite] [--out FILE]  the configured database (DATABASE_URL, or the embedded server
//                                   in DATA_DIR), or with --pglite the PGlite-era DATA_DIR/db;
//                                   to FILE (written 0600: it holds pull secrets) or stdout;
//                                   BMCs without their credentials unless --include-bmc-credentials
//   import FILE                     into the configured database, in one transaction
//
// Run it while `bootsmith serve` is stopped when the database is the embedded one (the
// server in DATA_DIR belongs to one process at a time).
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import { commandConfig, commandLogger } from './command-config.js';
import { migrate } from '../platform/db/migration-runner.js';
import { SERVICE_DUMP_TABLES, SERVICE_MIGRATIONS } from '../service-database.js';
import { exportDump, importDump, parseDump } from '../platform/db/dump.js';
import { pgliteDir } from '../platform/db/pglite-era.js';
import { openDatabase, type SqlDatabase } from '../platform/db/sql.js';
import { describeError } from '../errors.js';
import { argument, flagOption, valueOption } from './options.js';
import { openPgliteCopy } from './pglite-source.js';
import { type CliIo, defineVerb, runGroup, type VerbGroup, withoutStdin } from './verb.js';

export const DB_USAGE = `  bootsmith db export [--pglite] [--out FILE] [--include-bmc-credentials]
  bootsmith db import FILE`;

export const dbExport = defineVerb({
  name: 'bootsmith db export',
  summary: 'Export InfraEnvs, BMCs, hosts, events and signing keys as JSON (pull secrets included: written 0600)',
  options: {
    includeBmcCredentials: flagOption({
      long: 'include-bmc-credentials',
      help: "keep the BMCs' sealed credentials (they open only with the same BMC_CREDENTIALS_KEY_FILE / DATA_DIR/auth/bmc-credentials.key)",
    }),
    pglite: flagOption({
      long: 'pglite',
      help: 'read the PGlite-era DATA_DIR/db (a copy) instead of the configured database',
    }),
    out: valueOption({ long: 'out', value: 'FILE', help: 'write to FILE (0600) instead of stdout' }),
  },
  positionals: {},
  run: ({ options }, io) => exportCommand(options.pglite, options.out, options.includeBmcCredentials, io),
});

export const dbImport = defineVerb({
  name: 'bootsmith db import',
  summary: 'Import an export into the configured database in one transaction (rows that exist are kept)',
  options: {},
  positionals: { file: argument('FILE') },
  run: ({ positionals }, io) => importCommand(positionals.file, io),
});

export const DB_GROUP: VerbGroup = { name: 'bootsmith db', verbs: { export: dbExport, import: dbImport } };

/** `bootsmith db <args…>` with the given I/O (tests call it in-process). */
export function dbCommand(args: readonly string[], io: Omit<CliIo, 'stdin'>): Promise<number> {
  return runGroup(DB_GROUP, args, withoutStdin(io));
}

function configured(io: CliIo, config: Config): Promise<SqlDatabase> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger: commandLogger(config, io),
    embeddedPostgresUser: config.embeddedPostgresUser,
  });
}

async function exportCommand(
  pglite: boolean,
  out: string | undefined,
  includeBmcCredentials: boolean,
  io: CliIo,
): Promise<number> {
  const config = commandConfig(io);
  if (config === 2) return 2;
  try {
    const source = pglite ? await openPgliteCopy(pgliteDir(config.dataDir)) : await configured(io, config);
    let text: string;
    try {
      const dump = await exportDump(source, SERVICE_DUMP_TABLES, { includeSealed: includeBmcCredentials });
      text = `${JSON.stringify(dump, null, 2)}\n`;
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
  } catch (err) {
    io.stderr.write(`bootsmith: ${describeError(err)}\n`);
    return 1;
  }
}

async function importCommand(file: string, io: CliIo): Promise<number> {
  const config = commandConfig(io);
  if (config === 2) return 2;
  try {
    const dump = parseDump(await readFile(file, 'utf8'), SERVICE_DUMP_TABLES);
    const db = await configured(io, config);
    try {
      await migrate(db, SERVICE_MIGRATIONS);
      const added = await importDump(db, SERVICE_DUMP_TABLES, dump);
      io.stdout.write(
        `${Object.entries(added)
          .map(([t, n]) => `${t}: ${n} added`)
          .join(', ')}\n`,
      );
    } finally {
      await db.close();
    }
    return 0;
  } catch (err) {
    io.stderr.write(`bootsmith: ${describeError(err)}\n`);
    return 1;
  }
}
