// The core's tables (InfraEnvs, hosts, events, service keys, short image-URL tokens), as the
// numbered migrations that build them. Applied by src/platform/db/migration-runner.ts with the
// other wings' lists (src/service-database.ts); versions are one sequence over every wing, so the
// core's next migration takes the next free number (7 and 8 are the BMC wing's,
// src/bmc/store/migrations.ts). Append new migrations; never edit an applied one.
// Does NOT: run them, or hold another wing's tables.
import type { MigrationList } from '../../platform/db/migration-runner.js';

export const CORE_MIGRATIONS: MigrationList = [
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
];
