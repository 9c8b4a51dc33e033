// `bootsmith db export|import`: the core's data as one JSON document, and back.
//
// Exports every row of infra_envs, bmcs (BMC records: their sealed credentials only when asked,
// `includeBmcCredentials`; they open only with the same BMC credentials key, which is never in
// the database), image_url_tokens (the short BMC URLs handed out: only their hashes), hosts,
// events and service_keys (the signing keys, so agent and image tokens stay valid) as JSON
// objects; BMC jobs are the running service's state and are not exported, through PostgreSQL's own to_jsonb, and
// imports them with jsonb_populate_recordset in one transaction: rows already present (same
// key; for events, same time, subject and message) are kept, nothing is half-imported. Works on any SqlExecutor, including a PGlite-era
// database opened only by the export command. The document holds pull secrets and keys:
// callers write it 0600. Does not open databases itself.
import { BadRequestError, withContext } from '../../errors.js';
import type { SqlDatabase, SqlExecutor } from '../../platform/db/sql.js';

export const DUMP_FORMAT = 'bootsmith-db-export';
export const DUMP_VERSION = 1;

/**
 * Tables in dependency order (hosts and tokens reference infra_envs), each exported in a stable
 * row order (two exports of the same data are the same document). `serial` columns are left
 * to the target. A table the source does not have yet (a PGlite-era database predates
 * image_url_tokens) exports as no rows; a dump without a table imports nothing into it.
 */
const TABLES = [
  { name: 'infra_envs', conflict: '(id)', skip: [] as string[], order: 'id' },
  // any conflict: the id, or another BMC of the same name (the target's is kept)
  { name: 'bmcs', conflict: 'any', skip: [], order: 'name' },
  { name: 'image_url_tokens', conflict: '(token_hash)', skip: ['seq'], order: 'infra_env_id, seq' },
  { name: 'hosts', conflict: '(infra_env_id, id)', skip: [], order: 'infra_env_id, id' },
  { name: 'events', conflict: '', skip: ['seq'], order: 'seq' },
  { name: 'service_keys', conflict: '(name)', skip: [], order: 'name' },
] as const;

/** Events have no natural key: one with the same time, subject and message is the same event. */
const EVENT_ALREADY_THERE = `WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.event_time = r.event_time AND e.name = r.name
  AND e.message = r.message AND e.infra_env_id IS NOT DISTINCT FROM r.infra_env_id AND e.host_id IS NOT DISTINCT FROM r.host_id)`;

export type TableName = (typeof TABLES)[number]['name'];

export interface Dump {
  format: typeof DUMP_FORMAT;
  version: typeof DUMP_VERSION;
  exportedAt: string;
  tables: Record<TableName, Record<string, unknown>[]>;
}

/** Columns left out of an export unless asked for (a BMC's sealed username and password). */
const BMC_CREDENTIALS_COLUMN = 'credentials';

export async function exportDump(db: SqlExecutor, options: { includeBmcCredentials?: boolean } = {}): Promise<Dump> {
  const tables = {} as Dump['tables'];
  for (const t of TABLES) {
    const [present] = await db.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [t.name]);
    if (!present?.present) {
      tables[t.name] = [];
      continue;
    }
    // One row per table row, gathered here: jsonb_agg over rows holding large jsonb values (a BMC's
    // inventory) took time quadratic in their size (600,000 boot targets: minutes per export).
    const rows = await db.query<{ row: Record<string, unknown> }>(
      `SELECT to_jsonb(t) AS row FROM ${t.name} t ORDER BY ${t.order}`,
    );
    tables[t.name] = rows.map(({ row: r }) => {
      for (const k of t.skip) delete r[k];
      if (t.name === 'bmcs' && !options.includeBmcCredentials) r[BMC_CREDENTIALS_COLUMN] = null;
      return r;
    });
  }
  return { format: DUMP_FORMAT, version: DUMP_VERSION, exportedAt: new Date().toISOString(), tables };
}

/** Parses and checks a dump document; says what is wrong with a bad one. */
export function parseDump(text: string): Dump {
  const doc: unknown = withContext(
    'not a JSON document',
    () => JSON.parse(text),
    (message) => new BadRequestError(message),
  );
  const d = doc as Partial<Dump> | null;
  if (!d || d.format !== DUMP_FORMAT) throw new BadRequestError(`not a ${DUMP_FORMAT} document`);
  if (d.version !== DUMP_VERSION)
    throw new BadRequestError(`unsupported export version ${String(d.version)} (this bootsmith reads ${DUMP_VERSION})`);
  for (const t of TABLES) {
    const rows = d.tables?.[t.name];
    if (
      rows !== undefined &&
      !(Array.isArray(rows) && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r)))
    ) {
      throw new BadRequestError(`tables.${t.name} must be a list of objects`);
    }
  }
  return {
    ...(d as Dump),
    tables: Object.fromEntries(TABLES.map((t) => [t.name, d.tables?.[t.name] ?? []])) as Dump['tables'],
  };
}

/** Imports in one transaction; returns the rows added per table (existing keys are kept). */
export async function importDump(db: SqlDatabase, dump: Dump): Promise<Record<TableName, number>> {
  return db.transaction(async (tx) => {
    const added = {} as Record<TableName, number>;
    for (const t of TABLES) {
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
        .filter((c) => !(t.skip as readonly string[]).includes(c));
      const list = cols.map((c) => `"${c}"`).join(', ');
      const result = await tx.query<{ n: string }>(
        `WITH ins AS (
           INSERT INTO ${t.name} (${list})
           SELECT ${cols.map((c) => `r."${c}"`).join(', ')} FROM jsonb_populate_recordset(NULL::${t.name}, $1::jsonb) r
           ${t.conflict === 'any' ? 'ON CONFLICT DO NOTHING' : t.conflict ? `ON CONFLICT ${t.conflict} DO NOTHING` : EVENT_ALREADY_THERE}
           RETURNING 1)
         SELECT count(*)::text AS n FROM ins`,
        [JSON.stringify(rows)],
      );
      added[t.name] = Number(result[0]?.n ?? 0);
    }
    return added;
  });
}
