// `bootsmith db export|import`'s engine: the rows of the tables the wings name, as one JSON
// document, and back.
//
// Each wing says how its tables travel (a DumpTable each: the core's in src/core/db/dump-tables.ts,
// the BMC wing's in src/bmc/store/dump-tables.ts; src/service-database.ts puts them in the
// document's order, which is dependency order: a table after the ones it references). Export:
// every row of each table, through PostgreSQL's own to_jsonb, in a stable row order (two exports
// of the same data are the same document), `serial` columns left to the target, sealed columns
// (a BMC's sealed credentials) null unless asked for. A table the source does not have yet (a
// PGlite-era database predates image_url_tokens) exports as no rows; a dump without a table
// imports nothing into it. Import: jsonb_populate_recordset in one transaction; rows already
// present (by the table's key, or its own test for a table without one) are kept, nothing is
// half-imported. Works on any SqlExecutor, including a PGlite-era database opened only by the
// export command. The document holds pull secrets and keys: callers write it 0600.
// Does NOT: open databases, or know any table.
import { BadRequestError, withContext } from '../../errors.js';
import type { SqlDatabase, SqlExecutor } from './sql.js';

export const DUMP_FORMAT = 'bootsmith-db-export';
export const DUMP_VERSION = 1;

/** How one table travels in a dump: a wing's rule. */
export interface DumpTable<N extends string = string> {
  name: N;
  /**
   * Which imported rows the target has already, and keeps: a unique key (`(id)`: ON CONFLICT on
   * it), `any` unique conflict (the id, or another row with the same unique name), or, for a table
   * without a natural key, a `WHERE NOT EXISTS (…)` over the imported row `r`.
   */
  existing: { key: string } | 'any' | { notExists: string };
  /** Columns left to the target (serials). */
  skip: readonly string[];
  /** The export's ORDER BY. */
  order: string;
  /** Columns exported as null unless the export asks for sealed values. */
  sealed?: readonly string[];
}

export interface Dump<N extends string = string> {
  format: typeof DUMP_FORMAT;
  version: typeof DUMP_VERSION;
  exportedAt: string;
  tables: Record<N, Record<string, unknown>[]>;
}

export async function exportDump<N extends string>(
  db: SqlExecutor,
  tables: readonly DumpTable<N>[],
  options: { includeSealed?: boolean } = {},
): Promise<Dump<N>> {
  const out = {} as Dump<N>['tables'];
  for (const t of tables) {
    const [present] = await db.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [t.name]);
    if (!present?.present) {
      out[t.name] = [];
      continue;
    }
    // One row per table row, gathered here: jsonb_agg over rows holding large jsonb values (a BMC's
    // inventory) took time quadratic in their size (600,000 boot targets: minutes per export).
    const rows = await db.query<{ row: Record<string, unknown> }>(
      `SELECT to_jsonb(t) AS row FROM ${t.name} t ORDER BY ${t.order}`,
    );
    out[t.name] = rows.map(({ row: r }) => {
      for (const k of t.skip) delete r[k];
      if (!options.includeSealed) for (const k of t.sealed ?? []) r[k] = null;
      return r;
    });
  }
  return { format: DUMP_FORMAT, version: DUMP_VERSION, exportedAt: new Date().toISOString(), tables: out };
}

/** Parses and checks a dump document; says what is wrong with a bad one. */
export function parseDump<N extends string>(text: string, tables: readonly DumpTable<N>[]): Dump<N> {
  const doc: unknown = withContext(
    'not a JSON document',
    () => JSON.parse(text),
    (message) => new BadRequestError(message),
  );
  const d = doc as Partial<Dump<N>> | null;
  if (!d || d.format !== DUMP_FORMAT) throw new BadRequestError(`not a ${DUMP_FORMAT} document`);
  if (d.version !== DUMP_VERSION)
    throw new BadRequestError(`unsupported export version ${String(d.version)} (this bootsmith reads ${DUMP_VERSION})`);
  for (const t of tables) {
    const rows = d.tables?.[t.name];
    if (
      rows !== undefined &&
      !(Array.isArray(rows) && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r)))
    ) {
      throw new BadRequestError(`tables.${t.name} must be a list of objects`);
    }
  }
  return {
    ...(d as Dump<N>),
    tables: Object.fromEntries(tables.map((t) => [t.name, d.tables?.[t.name] ?? []])) as Dump<N>['tables'],
  };
}

/** Imports in one transaction; returns the rows added per table (existing keys are kept). */
export async function importDump<N extends string>(
  db: SqlDatabase,
  tables: readonly DumpTable<N>[],
  dump: Dump<N>,
): Promise<Record<N, number>> {
  return db.transaction(async (tx) => {
    const added = {} as Record<N, number>;
    for (const t of tables) {
      const rows = dump.tables[t.name];
      if (rows.length === 0) {
        added[t.name] = 0;
        continue;
      }
      const cols = (
        await tx.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
          [t.name],
        )
      )
        .map((c) => c.column_name)
        .filter((c) => !t.skip.includes(c));
      const list = cols.map((c) => `"${c}"`).join(', ');
      const result = await tx.query<{ n: string }>(
        `WITH ins AS (
           INSERT INTO ${t.name} (${list})
           SELECT ${cols.map((c) => `r."${c}"`).join(', ')} FROM jsonb_populate_recordset(NULL::${t.name}, $1::jsonb) r
           ${existingClause(t.existing)}
           RETURNING 1)
         SELECT count(*)::text AS n FROM ins`,
        [JSON.stringify(rows)],
      );
      added[t.name] = Number(result[0]?.n ?? 0);
    }
    return added;
  });
}

function existingClause(existing: DumpTable['existing']): string {
  if (existing === 'any') return 'ON CONFLICT DO NOTHING';
  return 'key' in existing ? `ON CONFLICT ${existing.key} DO NOTHING` : existing.notExists;
}
