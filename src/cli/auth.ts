// `bootsmith auth rotate-admin`: issues a new admin token and revokes the old one at once.
//
// Advances the admin token generation (src/core/auth/admin-generation.ts) where the running
// service checks it: in the database with DATABASE_URL, in DATA_DIR/auth/admin-generation with
// the embedded database (whose files the CLI never opens under a running service). Writes the
// new token to DATA_DIR/auth/admin-token (0600, atomically) and prints where, never the token.
// ADMIN_TOKEN_TTL, when set, gives the new token an expiry. Needs AUTH_TYPE=local.
import { commandConfig } from './command-config.js';
import { type CliIo, defineVerb, runGroup, type VerbGroup, withoutStdin } from './verb.js';
import { describeError } from '../errors.js';
import { LocalKeys } from '../core/auth/local-keys.js';
import { migrate } from '../platform/db/migration-runner.js';
import { SERVICE_MIGRATIONS } from '../service-database.js';
import { createRepository } from '../core/db/repository.js';
import { openDatabase } from '../platform/db/sql.js';

export const AUTH_USAGE = '  bootsmith auth rotate-admin';

export const authRotateAdmin = defineVerb({
  name: 'bootsmith auth rotate-admin',
  summary:
    'Issue a new admin token into DATA_DIR/auth/admin-token (never printed) and revoke the earlier ones, also on a running service',
  options: {},
  positionals: {},
  run: (_args, io) => rotateAdmin(io),
});

export const AUTH_GROUP: VerbGroup = { name: 'bootsmith auth', verbs: { 'rotate-admin': authRotateAdmin } };

/** `bootsmith auth <args…>` with the given I/O (tests call it in-process). */
export function authCommand(args: readonly string[], io: Omit<CliIo, 'stdin'>): Promise<number> {
  return runGroup(AUTH_GROUP, args, withoutStdin(io));
}

async function rotateAdmin(io: CliIo): Promise<number> {
  const config = commandConfig(io);
  if (config === 2) return 2;
  if (config.authType !== 'local') {
    io.stderr.write('bootsmith: there is no admin token to rotate: AUTH_TYPE is not local\n');
    return 2;
  }
  const options = { adminTokenTtlMs: config.adminTokenTtlMs };
  let result;
  try {
    if (config.databaseUrl) {
      const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        await migrate(db, SERVICE_MIGRATIONS);
        const keys = await LocalKeys.load(createRepository(db), config.dataDir, { ...options, sharedDatabase: true });
        result = await keys.rotateAdmin();
      } finally {
        await db.close();
      }
    } else {
      let keys;
      try {
        keys = await LocalKeys.fromDataDir(config.dataDir, options);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        io.stderr.write(
          `bootsmith: no keys in ${config.dataDir}/auth: start the service once with AUTH_TYPE=local first\n`,
        );
        return 1;
      }
      result = await keys.rotateAdmin();
    }
  } catch (err) {
    io.stderr.write(`bootsmith: admin token rotation failed: ${describeError(err)}\n`);
    return 1;
  }
  const expiry = result.expiresAt ? `, expires ${result.expiresAt.toISOString()}` : ', no expiry';
  io.stdout.write(
    `admin token generation ${result.generation} written to ${result.file}${expiry}; earlier admin tokens no longer work\n`,
  );
  return 0;
}
