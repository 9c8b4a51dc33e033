// The BMC wing's tables (BMC records, their jobs, the reads of a boot job's ISO URL), as the
// numbered migrations that build them. Applied by src/platform/db/migration-runner.ts after the
// core's (src/service-database.ts): bmcs references infra_envs. Versions are one sequence over
// every wing (7 and 8 were numbered when these lived in the core's list; databases record them so).
// Append new migrations with the next free number; never edit an applied one.
// Does NOT: run them, or read the core's tables (../core-port.ts is how the wing reaches them).
import type { MigrationList } from '../../platform/db/migration-runner.js';

export const BMC_MIGRATIONS: MigrationList = [
  {
    version: 7,
    name: 'BMC records, BMC jobs (one active job per BMC), reads of a boot job ISO URL',
    // The core never reads these tables. A BMC's credentials are an AES-256-GCM envelope sealed
    // with a key kept outside the database (./credentials.ts).
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
  {
    version: 9,
    name: 'BMC boot method: virtual media or UEFI HTTP Boot (NULL = auto: by profile and what the System lists)',
    sql: `ALTER TABLE bmcs ADD COLUMN boot_method text;`,
  },
];
