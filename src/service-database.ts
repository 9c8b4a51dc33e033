// The service's one database as its wings compose it: each wing's migrations, handed to the
// platform's runner (src/platform/db/migration-runner.ts) in the order they apply, and each wing's
// dump rules, in the order `bootsmith db export|import` (src/platform/db/dump.ts) carries them.
//
// The core's migrations first (every BMC table hangs off infra_envs), then the BMC wing's, then
// the PXE front door's (9: its assignments); the runner applies them by version, which is one
// sequence over all of them (1–6 the core's, 7–8 the BMC wing's: the versions and names databases
// have recorded since before the wings had lists of their own). The dump's tables in dependency order, as the document and the import's report have
// always listed them: infra_envs, then the tables that reference it, then the rest.
// Does NOT: open the database (src/platform/db/sql.ts), or know a table's columns.
import { BMC_DUMP_TABLES } from './bmc/store/dump-tables.js';
import { BMC_MIGRATIONS } from './bmc/store/migrations.js';
import { CORE_DUMP_TABLES } from './core/db/dump-tables.js';
import { CORE_MIGRATIONS } from './core/db/migrations.js';
import { FRONT_DOOR_DUMP_TABLES, FRONT_DOOR_MIGRATIONS } from './front-door/assignments/migrations.js';
import type { MigrationList } from './platform/db/migration-runner.js';

/** Every wing's migrations: what `bootsmith serve`, `bootsmith db` and `bootsmith auth` apply. */
export const SERVICE_MIGRATIONS: readonly MigrationList[] = [CORE_MIGRATIONS, BMC_MIGRATIONS, FRONT_DOOR_MIGRATIONS];

/** Every wing's exported tables, in the document's order. */
export const SERVICE_DUMP_TABLES = [
  CORE_DUMP_TABLES.infraEnvs,
  BMC_DUMP_TABLES.bmcs,
  CORE_DUMP_TABLES.imageUrlTokens,
  CORE_DUMP_TABLES.hosts,
  CORE_DUMP_TABLES.events,
  CORE_DUMP_TABLES.serviceKeys,
  // after the tables the document has always had (it references infra_envs, which comes first)
  FRONT_DOOR_DUMP_TABLES.assignments,
] as const;
