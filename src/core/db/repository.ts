// The one repository interface over the core's SQL schema, and its SQL implementation.
//
// Every read and write of InfraEnvs, hosts, events and service keys goes through
// here. `transaction` hands out a repository bound to one transaction so handlers
// compose several writes atomically. INSERT/UPDATE/upsert/SELECT statements and row mapping
// are generated from the column maps in ./tables.ts (src/platform/db/column-map.ts); filtered queries, the
// heartbeat's one-UPDATE fast path and the monitor's locking SELECT are written here.
// Does not validate input or apply business rules.
import type { SqlDatabase, SqlExecutor } from '../../platform/db/sql.js';
import type { EventRecord, HostRecord, HostStatus, InfraEnvRecord, Severity } from '../model.js';
import {
  insertSql,
  paramsOf,
  recordFromRow,
  selectSql,
  updateByKeySql,
  upsertSql,
} from '../../platform/db/column-map.js';
import { EVENTS, HOSTS, INFRA_ENVS } from './tables.js';

export interface EventFilter {
  infraEnvId?: string;
  hostIds?: string[];
  clusterId?: string;
  severities?: Severity[];
  message?: string;
}

export interface EventQuery extends EventFilter {
  order: 'ascending' | 'descending';
  limit?: number;
  offset?: number;
}

/** Where a listing stopped: the last row's sort key (event_time, then seq). */
export interface EventCursor {
  eventTime: Date;
  seq: number;
}

export type EventCounts = Pick<EventPage, 'severityCounts' | 'total'>;

export interface EventPage {
  events: (EventRecord & { seq: number })[];
  /** Counts per severity over the filter without severities/limit/offset. */
  severityCounts: Record<Severity, number>;
  total: number;
}

/** A row of image_url_tokens: never the token itself, only its sha256. */
export interface UrlTokenRow {
  tokenHash: string;
  infraEnvId: string;
  /** The InfraEnv's own download_url token (derived, re-minted per half TTL), exempt from the per-InfraEnv cap. */
  standing: boolean;
  expiresAt: Date;
  createdAt: Date;
}

export interface Repository {
  transaction<T>(fn: (repo: Repository) => Promise<T>): Promise<T>;

  insertInfraEnv(rec: InfraEnvRecord): Promise<void>;
  getInfraEnv(id: string, opts?: { forUpdate?: boolean }): Promise<InfraEnvRecord | undefined>;
  /** Whether the InfraEnv exists, without reading it (its override may be a megabyte). */
  infraEnvExists(id: string): Promise<boolean>;
  listInfraEnvs(filter?: { clusterId?: string }): Promise<InfraEnvRecord[]>;
  updateInfraEnv(rec: InfraEnvRecord): Promise<void>;
  deleteInfraEnv(id: string): Promise<boolean>;

  getHost(infraEnvId: string, hostId: string, opts?: { forUpdate?: boolean }): Promise<HostRecord | undefined>;
  /**
   * The heartbeat's fast path, one statement: records a check-in of a host that is not
   * disconnected (nothing else about it can change by a check-in). Undefined when the host
   * does not exist or is disconnected (the caller then takes the full path).
   */
  checkInConnectedHost(
    infraEnvId: string,
    hostId: string,
    at: Date,
    hostTimestamp: number | undefined,
    agentVersion: string | undefined,
  ): Promise<Pick<HostRecord, 'id' | 'status'> | undefined>;
  listHosts(infraEnvId: string): Promise<HostRecord[]>;
  /** The InfraEnv's hosts registered at or after `since`, newest first, at most `limit` (a BMC boot job's match). */
  hostsRegisteredSince(
    infraEnvId: string,
    since: Date,
    limit: number,
  ): Promise<{ id: string; registeredAt: Date; inventory: string | null }[]>;
  /**
   * Up to `limit` hosts in the given states that last checked in before `cutoff`, oldest
   * first, each row locked for this transaction; rows another transaction holds (a heartbeat
   * in flight) are skipped, so the caller never overwrites a newer change.
   */
  listStaleHostsForUpdate(statuses: HostStatus[], cutoff: Date, limit: number): Promise<HostRecord[]>;
  /**
   * Hosts whose id is one of `ids` (the agent's host id is the System UUID) or whose inventory
   * names `mac` (lower case, colons) on an interface, newest registration first, at most `limit`.
   * The MAC test is a text search the caller confirms by parsing the inventory.
   */
  hostsByIdentity(
    mac: string | undefined,
    ids: readonly string[],
    limit: number,
  ): Promise<{ infraEnvId: string; id: string; registeredAt: Date; inventory: string | null }[]>;
  /** The InfraEnvs whose static_network_config maps `mac` (lower case, colons) to an interface, at most `limit`. */
  infraEnvsWithStaticMac(mac: string, limit: number): Promise<string[]>;
  upsertHost(rec: HostRecord): Promise<void>;
  deleteHost(infraEnvId: string, hostId: string): Promise<boolean>;

  insertEvent(ev: EventRecord): Promise<void>;
  /** All matching events in one page (tests and small reads; the API streams with listEventsAfter). */
  listEvents(q: EventQuery): Promise<EventPage>;
  /** Event-Count and the severity counts of a filter (severities ignored for the latter, as upstream). */
  countEvents(q: EventFilter): Promise<EventCounts>;
  /**
   * Up to `limit` events after `after` in the listing's order (event_time, seq), or from `offset`
   * when there is no cursor yet: one bounded batch of a streamed listing.
   */
  listEventsAfter(
    q: EventFilter & { order: 'ascending' | 'descending' },
    page: { after?: EventCursor; offset?: number; limit: number },
  ): Promise<(EventRecord & { seq: number })[]>;
  /** Whether an event named `name` of these entities exists since `since` (upstream's exceedsLimits). */
  hasEventSince(
    name: string,
    ids: { hostId?: string; infraEnvId?: string; clusterId?: string },
    since: Date,
  ): Promise<boolean>;
  /** Deletes at most `limit` events older than `cutoff`; returns how many. */
  deleteEventsBefore(cutoff: Date, limit: number): Promise<number>;
  /** InfraEnvs (at most `limit`) with more than `keep` events. */
  infraEnvsWithEventsOver(keep: number, limit: number): Promise<string[]>;
  /** Deletes at most `limit` of the InfraEnv's events beyond its newest `keep`; returns how many. */
  trimEventsOf(infraEnvId: string, keep: number, limit: number): Promise<number>;
  /** Deletes at most `limit` events beyond the newest `keep` overall; returns how many. */
  trimEvents(keep: number, limit: number): Promise<number>;

  /** Stores short image-URL tokens by their hash in one statement; a hash already stored is left as is. */
  insertUrlTokens(rows: UrlTokenRow[]): Promise<void>;
  getUrlToken(tokenHash: string): Promise<UrlTokenRow | undefined>;
  /** Revokes one token by its hash (a BMC boot job's, once its media is ejected). */
  deleteUrlToken(tokenHash: string): Promise<void>;
  deleteUrlTokensOf(infraEnvId: string): Promise<number>;
  /** Drops the oldest non-standing tokens of an InfraEnv beyond the newest `keep`; returns how many. */
  trimUrlTokens(infraEnvId: string, keep: number): Promise<number>;
  /** Deletes at most `limit` tokens that expired before `now`; returns how many. */
  purgeExpiredUrlTokens(now: Date, limit: number): Promise<number>;

  getServiceKey(name: string): Promise<string | undefined>;
  /** Stores `value` unless a key of that name exists; returns the stored value either way. */
  putServiceKeyIfAbsent(name: string, value: string): Promise<string>;

  /** Transaction-scoped advisory lock (pg_try_advisory_xact_lock); false when another replica holds it. */
  tryAdvisoryXactLock(key: number): Promise<boolean>;
}

/** The statements generated from the column maps, built once. */
const SQL = {
  insertInfraEnv: insertSql(INFRA_ENVS),
  updateInfraEnv: updateByKeySql(INFRA_ENVS, ['id']),
  selectInfraEnvs: selectSql(INFRA_ENVS),
  upsertHost: upsertSql(HOSTS, ['infraEnvId', 'id'], ['createdAt']),
  selectHosts: selectSql(HOSTS),
  insertEvent: insertSql(EVENTS),
  selectEvents: selectSql(EVENTS, ['seq']),
} as const;

export function createRepository(db: SqlDatabase): Repository {
  return new SqlRepository(db, db);
}

class SqlRepository implements Repository {
  constructor(
    private readonly db: SqlDatabase,
    private readonly ex: SqlExecutor,
    private readonly inTx = false,
  ) {}

  transaction<T>(fn: (repo: Repository) => Promise<T>): Promise<T> {
    if (this.inTx) return fn(this);
    return this.db.transaction((tx) => fn(new SqlRepository(this.db, tx, true)));
  }

  async insertInfraEnv(r: InfraEnvRecord): Promise<void> {
    await this.ex.query(SQL.insertInfraEnv, paramsOf(INFRA_ENVS, r));
  }

  async getInfraEnv(id: string, opts: { forUpdate?: boolean } = {}): Promise<InfraEnvRecord | undefined> {
    const rows = await this.ex.query(`${SQL.selectInfraEnvs} WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [
      id,
    ]);
    return rows[0] ? recordFromRow(INFRA_ENVS, rows[0]) : undefined;
  }

  async infraEnvExists(id: string): Promise<boolean> {
    return (await this.ex.query('SELECT 1 FROM infra_envs WHERE id = $1', [id])).length > 0;
  }

  async listInfraEnvs(filter: { clusterId?: string } = {}): Promise<InfraEnvRecord[]> {
    const rows = filter.clusterId
      ? await this.ex.query(`${SQL.selectInfraEnvs} WHERE cluster_id = $1 ORDER BY created_at, id`, [filter.clusterId])
      : await this.ex.query(`${SQL.selectInfraEnvs} ORDER BY created_at, id`);
    return rows.map((row) => recordFromRow(INFRA_ENVS, row));
  }

  async updateInfraEnv(r: InfraEnvRecord): Promise<void> {
    await this.ex.query(SQL.updateInfraEnv, paramsOf(INFRA_ENVS, r));
  }

  async deleteInfraEnv(id: string): Promise<boolean> {
    const rows = await this.ex.query('DELETE FROM infra_envs WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }

  async getHost(
    infraEnvId: string,
    hostId: string,
    opts: { forUpdate?: boolean } = {},
  ): Promise<HostRecord | undefined> {
    const rows = await this.ex.query(
      `${SQL.selectHosts} WHERE infra_env_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
      [infraEnvId, hostId],
    );
    return rows[0] ? recordFromRow(HOSTS, rows[0]) : undefined;
  }

  async listHosts(infraEnvId: string): Promise<HostRecord[]> {
    const rows = await this.ex.query(`${SQL.selectHosts} WHERE infra_env_id = $1 ORDER BY created_at, id`, [
      infraEnvId,
    ]);
    return rows.map((row) => recordFromRow(HOSTS, row));
  }

  async hostsRegisteredSince(
    infraEnvId: string,
    since: Date,
    limit: number,
  ): Promise<{ id: string; registeredAt: Date; inventory: string | null }[]> {
    const rows = await this.ex.query<{ id: string; registered_at: Date; inventory: string | null }>(
      `SELECT id, registered_at, inventory FROM hosts WHERE infra_env_id = $1 AND registered_at >= $2
       ORDER BY registered_at DESC LIMIT $3`,
      [infraEnvId, since, limit],
    );
    return rows.map((r) => ({ id: r.id, registeredAt: new Date(r.registered_at), inventory: r.inventory }));
  }

  async hostsByIdentity(
    mac: string | undefined,
    ids: readonly string[],
    limit: number,
  ): Promise<{ infraEnvId: string; id: string; registeredAt: Date; inventory: string | null }[]> {
    const rows = await this.ex.query<{
      infra_env_id: string;
      id: string;
      registered_at: Date;
      inventory: string | null;
    }>(
      `SELECT infra_env_id, id, registered_at, inventory FROM hosts
       WHERE id = ANY($1::uuid[]) OR ($2::text IS NOT NULL AND strpos(lower(inventory), $2::text) > 0)
       ORDER BY registered_at DESC LIMIT $3`,
      [ids, mac ?? null, limit],
    );
    return rows.map((r) => ({
      infraEnvId: r.infra_env_id,
      id: r.id,
      registeredAt: new Date(r.registered_at),
      inventory: r.inventory,
    }));
  }

  async infraEnvsWithStaticMac(mac: string, limit: number): Promise<string[]> {
    const rows = await this.ex.query<{ id: string }>(
      `SELECT id FROM infra_envs
       WHERE jsonb_typeof(static_network_config) = 'array' AND EXISTS (
         SELECT 1 FROM jsonb_array_elements(static_network_config) AS entry,
           jsonb_array_elements(CASE jsonb_typeof(entry->'mac_interface_map')
             WHEN 'array' THEN entry->'mac_interface_map' ELSE '[]'::jsonb END) AS pair
         WHERE lower(replace(pair->>'mac_address', '-', ':')) = $1)
       ORDER BY updated_at DESC LIMIT $2`,
      [mac, limit],
    );
    return rows.map((r) => r.id);
  }

  async checkInConnectedHost(
    infraEnvId: string,
    hostId: string,
    at: Date,
    hostTimestamp: number | undefined,
    agentVersion: string | undefined,
  ): Promise<Pick<HostRecord, 'id' | 'status'> | undefined> {
    const rows = await this.ex.query<{ id: string; status: HostRecord['status'] }>(
      `UPDATE hosts SET checked_in_at = $3, host_timestamp = COALESCE($4, host_timestamp),
        discovery_agent_version = COALESCE($5, discovery_agent_version)
       WHERE infra_env_id = $1 AND id = $2 AND status <> 'disconnected-unbound' RETURNING id, status`,
      [infraEnvId, hostId, at, hostTimestamp ?? null, agentVersion ?? null],
    );
    return rows[0];
  }

  async listStaleHostsForUpdate(statuses: HostStatus[], cutoff: Date, limit: number): Promise<HostRecord[]> {
    const rows = await this.ex.query(
      `${SQL.selectHosts} WHERE status = ANY($1::text[]) AND checked_in_at < $2
       ORDER BY checked_in_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [statuses, cutoff, limit],
    );
    return rows.map((row) => recordFromRow(HOSTS, row));
  }

  async upsertHost(h: HostRecord): Promise<void> {
    await this.ex.query(SQL.upsertHost, paramsOf(HOSTS, h));
  }

  async deleteHost(infraEnvId: string, hostId: string): Promise<boolean> {
    const rows = await this.ex.query('DELETE FROM hosts WHERE infra_env_id = $1 AND id = $2 RETURNING id', [
      infraEnvId,
      hostId,
    ]);
    return rows.length > 0;
  }

  async insertEvent(e: EventRecord): Promise<void> {
    await this.ex.query(SQL.insertEvent, paramsOf(EVENTS, e));
  }

  /** WHERE clause and parameters of a filter; `withSeverities` false for the severity counts. */
  private eventWhere(q: EventFilter, withSeverities: boolean): { where: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      clauses.push(clause.replace('?', `$${params.length}`));
    };
    if (q.infraEnvId) add('infra_env_id = ?', q.infraEnvId);
    if (q.clusterId) add('cluster_id = ?', q.clusterId);
    if (q.hostIds && q.hostIds.length > 0) add('host_id = ANY(?::uuid[])', q.hostIds);
    if (q.message) add(`message ILIKE ?`, `%${q.message.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    if (withSeverities && q.severities && q.severities.length > 0) add('severity = ANY(?::text[])', q.severities);
    return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
  }

  async countEvents(q: EventFilter): Promise<EventCounts> {
    const base = this.eventWhere(q, false);
    const countRows = await this.ex.query<{ severity: Severity; n: number }>(
      `SELECT severity, count(*)::int AS n FROM events ${base.where} GROUP BY severity`,
      base.params,
    );
    const severityCounts: Record<Severity, number> = { info: 0, warning: 0, error: 0, critical: 0 };
    for (const r of countRows) severityCounts[r.severity] = Number(r.n);
    const listed = this.eventWhere(q, true);
    const totalRows = await this.ex.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events ${listed.where}`,
      listed.params,
    );
    return { severityCounts, total: Number(totalRows[0]?.n ?? 0) };
  }

  async listEvents(q: EventQuery): Promise<EventPage> {
    const counts = await this.countEvents(q);
    const { where, params } = this.eventWhere(q, true);
    const dir = q.order === 'descending' ? 'DESC' : 'ASC';
    let tail = '';
    if (q.limit !== undefined && q.limit >= 0) {
      params.push(q.limit);
      tail += ` LIMIT $${params.length}`;
    }
    if (q.offset !== undefined && q.offset > 0) {
      params.push(q.offset);
      tail += ` OFFSET $${params.length}`;
    }
    const rows = await this.ex.query(
      `${SQL.selectEvents} ${where} ORDER BY event_time ${dir}, seq ${dir}${tail}`,
      params,
    );
    const events = rows.map((row) => ({ seq: Number(row.seq), ...recordFromRow(EVENTS, row) }));
    return { events, ...counts };
  }

  async listEventsAfter(
    q: EventFilter & { order: 'ascending' | 'descending' },
    page: { after?: EventCursor; offset?: number; limit: number },
  ): Promise<(EventRecord & { seq: number })[]> {
    const { where, params } = this.eventWhere(q, true);
    const dir = q.order === 'descending' ? 'DESC' : 'ASC';
    let clause = where;
    let tail = '';
    if (page.after) {
      // the cursor row's own event_time (microseconds; a JavaScript Date keeps milliseconds, and
      // imported or SQL-written events have more), the Date only if that row was deleted meanwhile
      params.push(page.after.eventTime, page.after.seq);
      const t = `$${params.length - 1}`;
      const seq = `$${params.length}`;
      const cmp = q.order === 'descending' ? '<' : '>';
      clause += `${clause ? ' AND' : 'WHERE'} (event_time, seq) ${cmp} (COALESCE((SELECT event_time FROM events WHERE seq = ${seq}), ${t}), ${seq})`;
    } else if (page.offset !== undefined && page.offset > 0) {
      params.push(page.offset);
      tail = ` OFFSET $${params.length}`;
    }
    params.push(page.limit);
    const rows = await this.ex.query(
      `${SQL.selectEvents} ${clause} ORDER BY event_time ${dir}, seq ${dir} LIMIT $${params.length}${tail}`,
      params,
    );
    return rows.map((row) => ({ seq: Number(row.seq), ...recordFromRow(EVENTS, row) }));
  }

  async hasEventSince(
    name: string,
    ids: { hostId?: string; infraEnvId?: string; clusterId?: string },
    since: Date,
  ): Promise<boolean> {
    const params: unknown[] = [name, since];
    const clauses = ['name = $1', 'event_time > $2'];
    for (const [column, value] of [
      ['host_id', ids.hostId],
      ['infra_env_id', ids.infraEnvId],
      ['cluster_id', ids.clusterId],
    ] as const) {
      if (value === undefined) continue;
      params.push(value);
      clauses.push(`${column} = $${params.length}`);
    }
    const rows = await this.ex.query(`SELECT 1 FROM events WHERE ${clauses.join(' AND ')} LIMIT 1`, params);
    return rows.length > 0;
  }

  async deleteEventsBefore(cutoff: Date, limit: number): Promise<number> {
    const rows = await this.ex.query(
      `DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE event_time < $1 LIMIT $2) RETURNING 1`,
      [cutoff, limit],
    );
    return rows.length;
  }

  async infraEnvsWithEventsOver(keep: number, limit: number): Promise<string[]> {
    const rows = await this.ex.query<{ id: string }>(
      `SELECT infra_env_id AS id FROM events WHERE infra_env_id IS NOT NULL
       GROUP BY infra_env_id HAVING count(*) > $1 LIMIT $2`,
      [keep, limit],
    );
    return rows.map((r) => r.id);
  }

  async trimEventsOf(infraEnvId: string, keep: number, limit: number): Promise<number> {
    const rows = await this.ex.query(
      `DELETE FROM events WHERE seq IN (
         SELECT seq FROM events WHERE infra_env_id = $1 ORDER BY event_time DESC, seq DESC OFFSET $2 LIMIT $3)
       RETURNING 1`,
      [infraEnvId, keep, limit],
    );
    return rows.length;
  }

  async trimEvents(keep: number, limit: number): Promise<number> {
    const rows = await this.ex.query(
      `DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY seq DESC OFFSET $1 LIMIT $2) RETURNING 1`,
      [keep, limit],
    );
    return rows.length;
  }

  async insertUrlTokens(rows: UrlTokenRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ex.query(
      `INSERT INTO image_url_tokens (token_hash, infra_env_id, standing, expires_at, created_at)
       SELECT * FROM unnest($1::text[], $2::uuid[], $3::boolean[], $4::timestamptz[], $5::timestamptz[])
       ON CONFLICT (token_hash) DO NOTHING`,
      [
        rows.map((r) => r.tokenHash),
        rows.map((r) => r.infraEnvId),
        rows.map((r) => r.standing),
        rows.map((r) => r.expiresAt),
        rows.map((r) => r.createdAt),
      ],
    );
  }

  async getUrlToken(tokenHash: string): Promise<UrlTokenRow | undefined> {
    const rows = await this.ex.query<{
      token_hash: string;
      infra_env_id: string;
      standing: boolean;
      expires_at: Date;
      created_at: Date;
    }>(
      'SELECT token_hash, infra_env_id, standing, expires_at, created_at FROM image_url_tokens WHERE token_hash = $1',
      [tokenHash],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      tokenHash: r.token_hash,
      infraEnvId: r.infra_env_id,
      standing: r.standing,
      expiresAt: new Date(r.expires_at),
      createdAt: new Date(r.created_at),
    };
  }

  async deleteUrlToken(tokenHash: string): Promise<void> {
    await this.ex.query('DELETE FROM image_url_tokens WHERE token_hash = $1', [tokenHash]);
  }

  async deleteUrlTokensOf(infraEnvId: string): Promise<number> {
    const rows = await this.ex.query('DELETE FROM image_url_tokens WHERE infra_env_id = $1 RETURNING 1', [infraEnvId]);
    return rows.length;
  }

  async trimUrlTokens(infraEnvId: string, keep: number): Promise<number> {
    const rows = await this.ex.query(
      `DELETE FROM image_url_tokens WHERE token_hash IN (
         SELECT token_hash FROM image_url_tokens WHERE infra_env_id = $1 AND NOT standing
         ORDER BY seq DESC OFFSET $2)
       RETURNING 1`,
      [infraEnvId, keep],
    );
    return rows.length;
  }

  async purgeExpiredUrlTokens(now: Date, limit: number): Promise<number> {
    const rows = await this.ex.query(
      `DELETE FROM image_url_tokens WHERE token_hash IN (
         SELECT token_hash FROM image_url_tokens WHERE expires_at <= $1 LIMIT $2)
       RETURNING 1`,
      [now, limit],
    );
    return rows.length;
  }

  async getServiceKey(name: string): Promise<string | undefined> {
    const rows = await this.ex.query<{ value: string }>('SELECT value FROM service_keys WHERE name = $1', [name]);
    return rows[0]?.value;
  }

  async putServiceKeyIfAbsent(name: string, value: string): Promise<string> {
    await this.ex.query('INSERT INTO service_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      name,
      value,
    ]);
    const stored = await this.getServiceKey(name);
    if (stored === undefined) throw new Error(`service key ${name} vanished after insert`);
    return stored;
  }

  async tryAdvisoryXactLock(key: number): Promise<boolean> {
    const rows = await this.ex.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [key]);
    return rows[0]?.ok === true;
  }
}
