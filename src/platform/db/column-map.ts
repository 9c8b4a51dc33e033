// One column map per table: which SQL column holds which record field and how a value crosses
// the boundary, and the INSERT / UPDATE / upsert / SELECT SQL and row mapping generated from it.
//
// Does: number the `$n` placeholders from the map's order, so a column is spelled once; turn a
// record into parameters (toSql) and a row into a record (fromSql; fields decoding to undefined
// are left out, so optional fields stay absent).
// Does NOT: run queries, know any table (each wing holds its maps: src/core/db/tables.ts,
// src/bmc/store/tables.ts), or build WHERE clauses beyond key equality (queries with filters stay
// hand-written in the repositories).

export interface Column<T> {
  /** The SQL column name (a plain identifier from our own schema, never user input). */
  name: string;
  /** Record value → SQL parameter; default: the value itself. */
  toSql?: (value: T) => unknown;
  /** SQL value → record value. */
  fromSql: (value: unknown) => T;
}

/** Every field of R mapped to exactly one column; the map's key order is the column order. */
export type ColumnMap<R> = { readonly [K in keyof R]-?: Column<R[K]> };

export interface Table<R> {
  name: string;
  columns: ColumnMap<R>;
}

type Row = Record<string, unknown>;

function fields<R>(table: Table<R>): (keyof R & string)[] {
  return Object.keys(table.columns) as (keyof R & string)[];
}

function column<R>(table: Table<R>, field: keyof R): Column<R[keyof R]> {
  return table.columns[field] as Column<R[keyof R]>;
}

/** The record's values in column order, ready as query parameters. */
export function paramsOf<R>(table: Table<R>, record: R): unknown[] {
  return fields(table).map((f) => {
    const c = column(table, f);
    return c.toSql ? c.toSql(record[f]) : record[f];
  });
}

/** `c1, c2, …` in column order. */
export function columnList<R>(table: Table<R>): string {
  return fields(table)
    .map((f) => column(table, f).name)
    .join(', ');
}

/** `INSERT INTO t (c1, …, cn) VALUES ($1, …, $n)`; parameters from paramsOf. */
export function insertSql<R>(table: Table<R>): string {
  const placeholders = fields(table)
    .map((_, i) => `$${i + 1}`)
    .join(', ');
  return `INSERT INTO ${table.name} (${columnList(table)}) VALUES (${placeholders})`;
}

/** `UPDATE t SET <every non-key column> WHERE <key columns> = …`; parameters from paramsOf. */
export function updateByKeySql<R>(table: Table<R>, key: readonly (keyof R)[]): string {
  const numbered = fields(table).map((f, i) => ({ f, sql: `${column(table, f).name} = $${i + 1}` }));
  const set = numbered.filter((n) => !key.includes(n.f)).map((n) => n.sql);
  const where = numbered.filter((n) => key.includes(n.f)).map((n) => n.sql);
  return `UPDATE ${table.name} SET ${set.join(', ')} WHERE ${where.join(' AND ')}`;
}

/**
 * Insert, or on a conflict over `key` overwrite every column except the key and `keep`
 * (columns that are set once, like created_at); parameters from paramsOf.
 */
export function upsertSql<R>(table: Table<R>, key: readonly (keyof R)[], keep: readonly (keyof R)[] = []): string {
  const conflict = key.map((f) => column(table, f).name).join(', ');
  const set = fields(table)
    .filter((f) => !key.includes(f) && !keep.includes(f))
    .map((f) => `${column(table, f).name} = EXCLUDED.${column(table, f).name}`);
  return `${insertSql(table)} ON CONFLICT (${conflict}) DO UPDATE SET ${set.join(', ')}`;
}

/** `SELECT c1, …, cn FROM t` (callers append WHERE / ORDER BY). */
export function selectSql<R>(table: Table<R>, extraColumns: readonly string[] = []): string {
  return `SELECT ${[columnList(table), ...extraColumns].join(', ')} FROM ${table.name}`;
}

/** A row read with selectSql → the record; fields that decode to undefined are left out. */
export function recordFromRow<R>(table: Table<R>, row: Row): R {
  const out: Partial<Record<keyof R, unknown>> = {};
  for (const f of fields(table)) {
    const c = column(table, f);
    const value = c.fromSql(row[c.name]);
    if (value !== undefined) out[f] = value;
  }
  return out as R;
}

// Codecs for the column types our schema uses.

export function text<T extends string = string>(name: string): Column<T> {
  return { name, fromSql: (v) => String(v) as T };
}

export function nullableText(name: string): Column<string | null> {
  return { name, fromSql: (v) => (v === null || v === undefined ? null : String(v)) };
}

/** An optional field stored as NULL when absent. */
export function optionalText(name: string): Column<string | undefined> {
  return { name, toSql: (v) => v ?? null, fromSql: (v) => (v === null || v === undefined ? undefined : String(v)) };
}

export function nullableNumber(name: string): Column<number | null> {
  return { name, fromSql: (v) => (v === null || v === undefined ? null : Number(v)) };
}

export function timestamp(name: string): Column<Date> {
  return { name, fromSql: (v) => (v instanceof Date ? v : new Date(String(v))) };
}

/** A timestamptz that may be NULL (null). */
export function nullableTimestamp(name: string): Column<Date | null> {
  return {
    name,
    fromSql: (v) => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v))),
  };
}

/** A JSON document in a text/jsonb column; NULL is null. */
export function nullableJson<T>(name: string): Column<T | null> {
  return {
    name,
    toSql: (v) => (v === null ? null : JSON.stringify(v)),
    fromSql: (v) => (v === null || v === undefined ? null : ((typeof v === 'string' ? JSON.parse(v) : v) as T)),
  };
}
