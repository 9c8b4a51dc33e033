// The front door's table, as the numbered migration that builds it: explicit assignments of a
// host (by MAC or by System UUID) to an InfraEnv, with whether it boots through shim and signed
// GRUB (Secure Boot). Applied by src/platform/db/migration-runner.ts after the core's and the BMC
// wing's (src/service-database.ts): it references infra_envs and goes with it. Versions are one
// sequence over every wing; append new migrations with the next free number.
// Does NOT: run them, or read the core's tables.
import type { DumpTable } from '../../platform/db/dump.js';
import type { MigrationList } from '../../platform/db/migration-runner.js';

export const FRONT_DOOR_MIGRATIONS: MigrationList = [
  {
    version: 10,
    name: 'PXE front door: host assignments by MAC or System UUID',
    sql: `
      CREATE TABLE pxe_assignments (
        kind text NOT NULL CHECK (kind IN ('mac', 'uuid')),
        key text NOT NULL,
        infra_env_id uuid NOT NULL REFERENCES infra_envs (id) ON DELETE CASCADE,
        secure_boot boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (kind, key)
      );
      CREATE INDEX pxe_assignments_infra_env ON pxe_assignments (infra_env_id);
    `,
  },
];

/** How the table travels in `bootsmith db export|import` (src/platform/db/dump.ts): every row, the target's kept on a conflict. */
export const FRONT_DOOR_DUMP_TABLES = {
  assignments: { name: 'pxe_assignments', existing: { key: '(kind, key)' }, skip: [], order: 'kind, key' },
} as const satisfies Record<string, DumpTable>;
