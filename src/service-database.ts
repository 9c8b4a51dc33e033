// The service's one database as its wings compose it: each wing's migrations, handed to the
// platform's runner (src/platform/db/migration-runner.ts) in the order they apply.
//
// The core's list first (every BMC table hangs off infra_envs), then the BMC wing's; the runner
// applies them by version, which is one sequence over both (1–6 the core's, 7–8 the BMC wing's:
// the versions and names databases have recorded since before the wings had lists of their own).
// Does NOT: open the database (src/platform/db/sql.ts), or know a table's columns.
import { BMC_MIGRATIONS } from './bmc/store/migrations.js';
import { CORE_MIGRATIONS } from './core/db/migrations.js';
import type { MigrationList } from './platform/db/migration-runner.js';

/** Every wing's migrations: what `bootsmith serve`, `bootsmith db` and `bootsmith auth` apply. */
export const SERVICE_MIGRATIONS: readonly MigrationList[] = [CORE_MIGRATIONS, BMC_MIGRATIONS];
