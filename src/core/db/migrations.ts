// The core's one SQL schema, as numbered migrations applied in order.
//
// Each migration runs once, inside a transaction, guarded by an advisory lock so
// replicas starting together do not race. Append new migrations; never edit an
// applied one. Plain PostgreSQL 13+ SQL (the embedded server and DATABASE_URL alike).
import type { SqlDatabase } from '../../platform/db/sql.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'infra envs, hosts, events, service keys',
    sql: `
      CREATE TABLE infra_envs (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        cluster_id uuid,
        openshift_version text NOT NULL,
        cpu_architecture text NOT NULL,
        image_type text NOT NULL,
        pull_secret text NOT NULL,
        ssh_authorized_key text NOT NULL DEFAULT '',
        proxy jsonb,
        additional_ntp_sources text NOT NULL DEFAULT '',
        static_network_config jsonb,
        ignition_config_override text NOT NULL DEFAULT '',
        kernel_arguments jsonb,
        additional_trust_bundle text NOT NULL DEFAULT '',
        image_token_key text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX infra_envs_cluster_id ON infra_envs (cluster_id);

      CREATE TABLE hosts (
        infra_env_id uuid NOT NULL REFERENCES infra_envs (id) ON DELETE CASCADE,
        id uuid NOT NULL,
        status text NOT NULL,
        status_info text NOT NULL,
        validations_info text NOT NULL DEFAULT '',
        inventory text,
        requested_hostname text NOT NULL DEFAULT '',
        role text NOT NULL DEFAULT 'auto-assign',
        discovery_agent_version text NOT NULL DEFAULT '',
        progress jsonb,
        host_timestamp bigint,
        checked_in_at timestamptz NOT NULL,
        registered_at timestamptz NOT NULL,
        status_updated_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (infra_env_id, id)
      );
      CREATE INDEX hosts_status ON hosts (status);

      CREATE TABLE events (
        seq bigserial PRIMARY KEY,
        name text NOT NULL,
        infra_env_id uuid,
        host_id uuid,
        cluster_id uuid,
        severity text NOT NULL,
        category text NOT NULL DEFAULT 'user',
        message text NOT NULL,
        event_time timestamptz NOT NULL,
        props text
      );
      CREATE INDEX events_infra_env ON events (infra_env_id, event_time);
      CREATE INDEX events_host ON events (host_id, event_time);

      CREATE TABLE service_keys (
        name text PRIMARY KEY,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    name: 'stable per-infra-env agent token',
    sql: `ALTER TABLE infra_envs ADD COLUMN agent_token text;`,
  },
  {
    version: 3,
    name: 'hosts by check-in time, for the disconnection monitor',
    sql: `CREATE INDEX hosts_status_checked_in_at ON hosts (status, checked_in_at);`,
  },
  {
    version: 4,
    name: 'short image-URL tokens, stored as sha256 hashes',
    sql: `
      CREATE TABLE image_url_tokens (
        token_hash text PRIMARY KEY,
        infra_env_id uuid NOT NULL REFERENCES infra_envs (id) ON DELETE CASCADE,
        standing boolean NOT NULL DEFAULT false,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        seq bigserial NOT NULL
      );
      CREATE INDEX image_url_tokens_infra_env ON image_url_tokens (infra_env_id, seq);
      CREATE INDEX image_url_tokens_expires_at ON image_url_tokens (expires_at);
    `,
  },
  {
    version: 5,
    name: "upstream's unbound host states, logs progress, network_discovery_delay_seconds",
    sql: `
      UPDATE hosts SET status = status || '-unbound'
        WHERE status IN ('discovering', 'known', 'insufficient', 'disconnected');
      UPDATE hosts SET status_info = 'Host is ready to be bound to a cluster' WHERE status = 'known-unbound';
      ALTER TABLE hosts ADD COLUMN logs_info text NOT NULL DEFAULT '', ADD COLUMN logs_started_at timestamptz;
      ALTER TABLE infra_envs ADD COLUMN network_discovery_delay_seconds bigint;
    `,
  },
  {
    version: 6,
    name: 'events by time, for retention by age',
    sql: `CREATE INDEX events_event_time ON events (event_time);`,
  },
  {
    version: 7,
    name: 'BMC records, BMC jobs (one active job per BMC), reads of a boot job ISO URL',
    // The BMC side's tables (src/bmc/store/): the core never reads them. A BMC's credentials are
    // an AES-256-GCM envelope sealed with a key kept outside the database (src/bmc/store/credentials.ts).
    sql: `
      CREATE TABLE bmcs (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        address text NOT NULL,
        credentials text,
        tls_verify text NOT NULL,
        ca_pem text,
        profile_override text,
        infra_env_id uuid REFERENCES infra_envs (id) ON DELETE SET NULL,
        boot_mode text NOT NULL,
        eject text NOT NULL,
        inventory jsonb,
        inventory_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX bmcs_infra_env ON bmcs (infra_env_id);

      CREATE TABLE bmc_jobs (
        id uuid PRIMARY KEY,
        bmc_id uuid NOT NULL REFERENCES bmcs (id) ON DELETE CASCADE,
        action text NOT NULL,
        state text NOT NULL,
        params jsonb NOT NULL,
        steps jsonb NOT NULL,
        error text,
        infra_env_id uuid,
        image_token_hash text,
        host_id uuid,
        lease_owner text,
        lease_expires_at timestamptz,
        claims integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        updated_at timestamptz NOT NULL,
        finished_at timestamptz
      );
      -- One job per BMC at a time: a second queued or running job of the same BMC is refused here.
      CREATE UNIQUE INDEX bmc_jobs_one_active ON bmc_jobs (bmc_id) WHERE state IN ('queued', 'running');
      CREATE INDEX bmc_jobs_claimable ON bmc_jobs (state, lease_expires_at);
      CREATE INDEX bmc_jobs_bmc ON bmc_jobs (bmc_id, created_at);
      CREATE INDEX bmc_jobs_image_token ON bmc_jobs (image_token_hash) WHERE image_token_hash IS NOT NULL;

      CREATE TABLE bmc_job_reads (
        job_id uuid NOT NULL REFERENCES bmc_jobs (id) ON DELETE CASCADE,
        replica text NOT NULL,
        first_read_at timestamptz,
        last_read_at timestamptz,
        heads integer NOT NULL,
        requests integer NOT NULL,
        bytes bigint NOT NULL,
        ranges jsonb NOT NULL,
        boot_extents jsonb NOT NULL,
        size bigint NOT NULL,
        addresses jsonb NOT NULL,
        PRIMARY KEY (job_id, replica)
      );
    `,
  },
  {
    version: 8,
    name: 'BMC jobs count the claims that found their holder gone (died or stalled past the lease)',
    // A job whose runner takes its process down (a hostile BMC's answer exhausting memory) was
    // resumed after every restart; src/bmc/jobs/ fails it past MAX_RESUMES_AFTER_LOST_LEASE.
    sql: `ALTER TABLE bmc_jobs ADD COLUMN lost_leases integer NOT NULL DEFAULT 0;`,
  },
];

/** Arbitrary constant naming the migration lock (pg advisory locks are keyed by bigint). */
const MIGRATION_LOCK = 7_236_001;

export async function migrate(db: SqlDatabase, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await db
    .query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    .catch(async (err) => {
      // Two replicas creating the table at once: the loser sees a unique violation; the table exists now.
      const exists = await db.query(`SELECT to_regclass('schema_migrations') AS t`);
      if (!exists[0]?.t) throw err;
    });
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (done.length > 0) return;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    });
  }
  return applied;
}
