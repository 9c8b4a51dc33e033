// The column map of each BMC table (bmcs, bmc_jobs, bmc_job_reads): the one place a column is
// named next to the record field it holds and its codec, as src/core/db/tables.ts does for the core.
//
// Does: describe the tables for src/platform/db/column-map.ts, which generates their SQL and row mapping.
// Does NOT: define the schema (./migrations.ts, migrations 7 and 8; a column added there is
// added here) or run queries (./bmc-repository.ts).
import {
  type Column,
  type Table,
  nullableJson,
  nullableText,
  nullableTimestamp,
  text,
  timestamp,
} from '../../platform/db/column-map.js';
import type { BmcInventory, BootMethod, BootMode, ProfileId } from '../redfish/index.js';
import type {
  BmcRecord,
  BmcTlsVerify,
  EjectPolicy,
  JobAction,
  JobParams,
  JobReadsRecord,
  JobRecord,
  JobState,
  JobStep,
  ReadRange,
} from './records.js';

/** A jsonb column that is never NULL. */
function json<T>(name: string): Column<T> {
  return {
    name,
    toSql: (v) => JSON.stringify(v),
    fromSql: (v) => (typeof v === 'string' ? JSON.parse(v) : v) as T,
  };
}

/** An integer or bigint column that is never NULL (pg returns bigint as a string). */
function integer(name: string): Column<number> {
  return { name, fromSql: (v) => Number(v) };
}

export const BMCS: Table<BmcRecord> = {
  name: 'bmcs',
  columns: {
    id: text('id'),
    name: text('name'),
    address: text('address'),
    credentials: nullableText('credentials'),
    tlsVerify: text<BmcTlsVerify>('tls_verify'),
    caPem: nullableText('ca_pem'),
    profileOverride: nullableText('profile_override') as Column<ProfileId | null>,
    infraEnvId: nullableText('infra_env_id'),
    bootMode: text<BootMode>('boot_mode'),
    bootMethod: nullableText('boot_method') as Column<BootMethod | null>,
    eject: text<EjectPolicy>('eject'),
    inventory: nullableJson<BmcInventory>('inventory'),
    inventoryAt: nullableTimestamp('inventory_at'),
    createdAt: timestamp('created_at'),
    updatedAt: timestamp('updated_at'),
  },
};

export const BMC_JOBS: Table<JobRecord> = {
  name: 'bmc_jobs',
  columns: {
    id: text('id'),
    bmcId: text('bmc_id'),
    action: text<JobAction>('action'),
    state: text<JobState>('state'),
    params: json<JobParams>('params'),
    steps: json<JobStep[]>('steps'),
    error: nullableText('error'),
    infraEnvId: nullableText('infra_env_id'),
    imageTokenHash: nullableText('image_token_hash'),
    hostId: nullableText('host_id'),
    leaseOwner: nullableText('lease_owner'),
    leaseExpiresAt: nullableTimestamp('lease_expires_at'),
    claims: integer('claims'),
    lostLeases: integer('lost_leases'),
    createdAt: timestamp('created_at'),
    startedAt: nullableTimestamp('started_at'),
    updatedAt: timestamp('updated_at'),
    finishedAt: nullableTimestamp('finished_at'),
  },
};

export const BMC_JOB_READS: Table<JobReadsRecord> = {
  name: 'bmc_job_reads',
  columns: {
    jobId: text('job_id'),
    replica: text('replica'),
    firstReadAt: nullableTimestamp('first_read_at'),
    lastReadAt: nullableTimestamp('last_read_at'),
    heads: integer('heads'),
    requests: integer('requests'),
    bytes: integer('bytes'),
    ranges: json<ReadRange[]>('ranges'),
    bootExtents: json<ReadRange[]>('boot_extents'),
    size: integer('size'),
    addresses: json<string[]>('addresses'),
  },
};
