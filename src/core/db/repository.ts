// The one repository interface over the core's SQL schema, and its SQL implementation.
//
// Every read and write of InfraEnvs, hosts, events and service keys goes through
// here. `transaction` hands out a repository bound to one transaction so handlers
// compose several writes atomically. Does not validate input or apply business rules.
import type { SqlDatabase, SqlExecutor } from './sql.js';
import type { CpuArchitecture } from '../../images/catalog/catalog-image.js';
import type { EventRecord, HostRecord, HostStatus, ImageType, InfraEnvRecord, Severity } from '../model.js';

export interface EventQuery {
  infraEnvId?: string;
  hostIds?: string[];
  clusterId?: string;
  severities?: Severity[];
  message?: string;
  order: 'ascending' | 'descending';
  limit?: number;
  offset?: number;
}

export interface EventPage {
  events: (EventRecord & { seq: number })[];
  /** Counts per severity over the filter without severities/limit/offset. */
  severityCounts: Record<Severity, number>;
  total: number;
}

export interface Repository {
  transaction<T>(fn: (repo: Repository) => Promise<T>): Promise<T>;

  insertInfraEnv(rec: InfraEnvRecord): Promise<void>;
  getInfraEnv(id: string, opts?: { forUpdate?: boolean }): Promise<InfraEnvRecord | undefined>;
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
  /**
   * Up to `limit` hosts in the given states that last checked in before `cutoff`, oldest
   * first, each row locked for this transaction; rows another transaction holds (a heartbeat
   * in flight) are skipped, so the caller never overwrites a newer change.
   */
  listStaleHostsForUpdate(statuses: HostStatus[], cutoff: Date, limit: number): Promise<HostRecord[]>;
  upsertHost(rec: HostRecord): Promise<void>;
  deleteHost(infraEnvId: string, hostId: string): Promise<boolean>;

  insertEvent(ev: EventRecord): Promise<void>;
  listEvents(q: EventQuery): Promise<EventPage>;

  getServiceKey(name: string): Promise<string | undefined>;
  /** Stores `value` unless a key of that name exists; returns the stored value either way. */
  putServiceKeyIfAbsent(name: string, value: string): Promise<string>;

  /** Transaction-scoped advisory lock (pg_try_advisory_xact_lock); false when another replica holds it. */
  tryAdvisoryXactLock(key: number): Promise<boolean>;
}

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
    await this.ex.query(
      `INSERT INTO infra_envs (id, name, cluster_id, openshift_version, cpu_architecture, image_type, pull_secret,
        ssh_authorized_key, proxy, additional_ntp_sources, static_network_config, ignition_config_override,
        kernel_arguments, additional_trust_bundle, image_token_key, created_at, updated_at, agent_token)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18)`,
      infraEnvParams(r),
    );
  }

  async getInfraEnv(id: string, opts: { forUpdate?: boolean } = {}): Promise<InfraEnvRecord | undefined> {
    const rows = await this.ex.query(`SELECT * FROM infra_envs WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ? infraEnvFromRow(rows[0]) : undefined;
  }

  async listInfraEnvs(filter: { clusterId?: string } = {}): Promise<InfraEnvRecord[]> {
    const rows = filter.clusterId
      ? await this.ex.query('SELECT * FROM infra_envs WHERE cluster_id = $1 ORDER BY created_at, id', [filter.clusterId])
      : await this.ex.query('SELECT * FROM infra_envs ORDER BY created_at, id');
    return rows.map(infraEnvFromRow);
  }

  async updateInfraEnv(r: InfraEnvRecord): Promise<void> {
    await this.ex.query(
      `UPDATE infra_envs SET name=$2, cluster_id=$3, openshift_version=$4, cpu_architecture=$5, image_type=$6,
        pull_secret=$7, ssh_authorized_key=$8, proxy=$9, additional_ntp_sources=$10, static_network_config=$11,
        ignition_config_override=$12, kernel_arguments=$13, additional_trust_bundle=$14, image_token_key=$15,
        created_at=$16, updated_at=$17, agent_token=$18 WHERE id=$1`,
      infraEnvParams(r),
    );
  }

  async deleteInfraEnv(id: string): Promise<boolean> {
    const rows = await this.ex.query('DELETE FROM infra_envs WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }

  async getHost(infraEnvId: string, hostId: string, opts: { forUpdate?: boolean } = {}): Promise<HostRecord | undefined> {
    const rows = await this.ex.query(
      `SELECT * FROM hosts WHERE infra_env_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
      [infraEnvId, hostId],
    );
    return rows[0] ? hostFromRow(rows[0]) : undefined;
  }

  async listHosts(infraEnvId: string): Promise<HostRecord[]> {
    const rows = await this.ex.query('SELECT * FROM hosts WHERE infra_env_id = $1 ORDER BY created_at, id', [infraEnvId]);
    return rows.map(hostFromRow);
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
       WHERE infra_env_id = $1 AND id = $2 AND status <> 'disconnected' RETURNING id, status`,
      [infraEnvId, hostId, at, hostTimestamp ?? null, agentVersion ?? null],
    );
    return rows[0];
  }

  async listStaleHostsForUpdate(statuses: HostStatus[], cutoff: Date, limit: number): Promise<HostRecord[]> {
    const rows = await this.ex.query(
      `SELECT * FROM hosts WHERE status = ANY($1::text[]) AND checked_in_at < $2
       ORDER BY checked_in_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [statuses, cutoff, limit],
    );
    return rows.map(hostFromRow);
  }

  async upsertHost(h: HostRecord): Promise<void> {
    await this.ex.query(
      `INSERT INTO hosts (infra_env_id, id, status, status_info, validations_info, inventory, requested_hostname, role,
        discovery_agent_version, progress, host_timestamp, checked_in_at, registered_at, status_updated_at, created_at, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)
       ON CONFLICT (infra_env_id, id) DO UPDATE SET status=EXCLUDED.status, status_info=EXCLUDED.status_info,
        validations_info=EXCLUDED.validations_info, inventory=EXCLUDED.inventory,
        requested_hostname=EXCLUDED.requested_hostname, role=EXCLUDED.role,
        discovery_agent_version=EXCLUDED.discovery_agent_version, progress=EXCLUDED.progress,
        host_timestamp=EXCLUDED.host_timestamp, checked_in_at=EXCLUDED.checked_in_at,
        registered_at=EXCLUDED.registered_at, status_updated_at=EXCLUDED.status_updated_at,
        updated_at=EXCLUDED.updated_at`,
      [
        h.infraEnvId, h.id, h.status, h.statusInfo, h.validationsInfo, h.inventory, h.requestedHostname, h.role,
        h.discoveryAgentVersion, h.progress === null ? null : JSON.stringify(h.progress), h.hostTimestamp,
        h.checkedInAt, h.registeredAt, h.statusUpdatedAt, h.createdAt, h.updatedAt,
      ],
    );
  }

  async deleteHost(infraEnvId: string, hostId: string): Promise<boolean> {
    const rows = await this.ex.query('DELETE FROM hosts WHERE infra_env_id = $1 AND id = $2 RETURNING id', [infraEnvId, hostId]);
    return rows.length > 0;
  }

  async insertEvent(e: EventRecord): Promise<void> {
    await this.ex.query(
      `INSERT INTO events (name, infra_env_id, host_id, cluster_id, severity, message, event_time, props)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
      [e.name, e.infraEnvId, e.hostId, e.clusterId, e.severity, e.message, e.eventTime, e.props ?? null],
    );
  }

  async listEvents(q: EventQuery): Promise<EventPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (q.infraEnvId) add('infra_env_id = ?', q.infraEnvId);
    if (q.clusterId) add('cluster_id = ?', q.clusterId);
    if (q.hostIds && q.hostIds.length > 0) add('host_id = ANY(?::uuid[])', q.hostIds);
    if (q.message) add(`message ILIKE ?`, `%${q.message.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const base = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const countRows = await this.ex.query<{ severity: Severity; n: number }>(
      `SELECT severity, count(*)::int AS n FROM events ${base} GROUP BY severity`,
      params,
    );
    const severityCounts: Record<Severity, number> = { info: 0, warning: 0, error: 0, critical: 0 };
    for (const r of countRows) severityCounts[r.severity] = Number(r.n);

    const listParams = [...params];
    let listWhere = base;
    if (q.severities && q.severities.length > 0) {
      listParams.push(q.severities);
      listWhere += `${listWhere ? ' AND' : 'WHERE'} severity = ANY($${listParams.length}::text[])`;
    }
    const totalRows = await this.ex.query<{ n: number }>(`SELECT count(*)::int AS n FROM events ${listWhere}`, listParams);
    const dir = q.order === 'descending' ? 'DESC' : 'ASC';
    let tail = '';
    if (q.limit !== undefined && q.limit >= 0) {
      listParams.push(q.limit);
      tail += ` LIMIT $${listParams.length}`;
    }
    if (q.offset !== undefined && q.offset > 0) {
      listParams.push(q.offset);
      tail += ` OFFSET $${listParams.length}`;
    }
    const rows = await this.ex.query(`SELECT * FROM events ${listWhere} ORDER BY event_time ${dir}, seq ${dir}${tail}`, listParams);
    return { events: rows.map(eventFromRow), severityCounts, total: Number(totalRows[0]?.n ?? 0) };
  }

  async getServiceKey(name: string): Promise<string | undefined> {
    const rows = await this.ex.query<{ value: string }>('SELECT value FROM service_keys WHERE name = $1', [name]);
    return rows[0]?.value;
  }

  async putServiceKeyIfAbsent(name: string, value: string): Promise<string> {
    await this.ex.query('INSERT INTO service_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, value]);
    const stored = await this.getServiceKey(name);
    if (stored === undefined) throw new Error(`service key ${name} vanished after insert`);
    return stored;
  }

  async tryAdvisoryXactLock(key: number): Promise<boolean> {
    const rows = await this.ex.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [key]);
    return rows[0]?.ok === true;
  }
}

function infraEnvParams(r: InfraEnvRecord): unknown[] {
  return [
    r.id, r.name, r.clusterId, r.openshiftVersion, r.cpuArchitecture, r.imageType, r.pullSecret, r.sshAuthorizedKey,
    r.proxy === null ? null : JSON.stringify(r.proxy), r.additionalNtpSources,
    r.staticNetworkConfig === null ? null : JSON.stringify(r.staticNetworkConfig), r.ignitionConfigOverride,
    r.kernelArguments === null ? null : JSON.stringify(r.kernelArguments), r.additionalTrustBundle, r.imageTokenKey,
    r.createdAt, r.updatedAt, r.agentToken,
  ];
}

type Row = Record<string, unknown>;

function json<T>(v: unknown): T | null {
  if (v === null || v === undefined) return null;
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

function date(v: unknown): Date {
  return v instanceof Date ? v : new Date(String(v));
}

function infraEnvFromRow(r: Row): InfraEnvRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    clusterId: r.cluster_id === null ? null : String(r.cluster_id),
    openshiftVersion: String(r.openshift_version),
    cpuArchitecture: String(r.cpu_architecture) as CpuArchitecture,
    imageType: String(r.image_type) as ImageType,
    pullSecret: String(r.pull_secret),
    sshAuthorizedKey: String(r.ssh_authorized_key),
    proxy: json(r.proxy),
    additionalNtpSources: String(r.additional_ntp_sources),
    staticNetworkConfig: json(r.static_network_config),
    ignitionConfigOverride: String(r.ignition_config_override),
    kernelArguments: json(r.kernel_arguments),
    additionalTrustBundle: String(r.additional_trust_bundle),
    imageTokenKey: String(r.image_token_key),
    agentToken: r.agent_token === null || r.agent_token === undefined ? null : String(r.agent_token),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  };
}

function hostFromRow(r: Row): HostRecord {
  return {
    infraEnvId: String(r.infra_env_id),
    id: String(r.id),
    status: String(r.status) as HostStatus,
    statusInfo: String(r.status_info),
    validationsInfo: String(r.validations_info),
    inventory: r.inventory === null ? null : String(r.inventory),
    requestedHostname: String(r.requested_hostname),
    role: String(r.role),
    discoveryAgentVersion: String(r.discovery_agent_version),
    progress: json(r.progress),
    hostTimestamp: r.host_timestamp === null ? null : Number(r.host_timestamp),
    checkedInAt: date(r.checked_in_at),
    registeredAt: date(r.registered_at),
    statusUpdatedAt: date(r.status_updated_at),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  };
}

function eventFromRow(r: Row): EventRecord & { seq: number } {
  return {
    seq: Number(r.seq),
    name: String(r.name),
    infraEnvId: r.infra_env_id === null ? null : String(r.infra_env_id),
    hostId: r.host_id === null ? null : String(r.host_id),
    clusterId: r.cluster_id === null ? null : String(r.cluster_id),
    severity: String(r.severity) as Severity,
    message: String(r.message),
    eventTime: date(r.event_time),
    ...(r.props === null || r.props === undefined ? {} : { props: String(r.props) }),
  };
}
