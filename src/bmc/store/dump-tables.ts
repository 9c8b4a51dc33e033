// How the BMC wing's tables travel in `bootsmith db export|import` (src/platform/db/dump.ts): every
// BMC record, its sealed credentials only when the export asks for them (they open only with the
// same BMC credentials key, which is never in the database). Jobs and their reads are the running
// service's state and stay behind.
// Does NOT: order the document (src/service-database.ts puts every wing's tables in order).
import type { DumpTable } from '../../platform/db/dump.js';

export const BMC_DUMP_TABLES = {
  // any conflict: the id, or another BMC of the same name (the target's is kept)
  bmcs: { name: 'bmcs', existing: 'any', skip: [], order: 'name', sealed: ['credentials'] },
} as const satisfies Record<string, DumpTable>;
