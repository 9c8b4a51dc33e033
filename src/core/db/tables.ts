// The column map of each core table (infra_envs, hosts, events): the one place a column is
// named next to the record field it holds and its codec.
//
// Does: describe the tables for src/platform/db/column-map.ts, which generates their SQL and row mapping.
// Does NOT: define the schema (src/core/db/migrations.ts does; a column added there is added here)
// or run queries (src/core/db/repository.ts).
import type { CpuArchitecture } from '../../images/architecture.js';
import type { EventRecord, HostRecord, HostStatus, ImageType, InfraEnvRecord, Severity } from '../model.js';
import {
  type Table,
  nullableJson,
  nullableNumber,
  nullableText,
  nullableTimestamp,
  optionalText,
  text,
  timestamp,
} from '../../platform/db/column-map.js';

export const INFRA_ENVS: Table<InfraEnvRecord> = {
  name: 'infra_envs',
  columns: {
    id: text('id'),
    name: text('name'),
    clusterId: nullableText('cluster_id'),
    openshiftVersion: text('openshift_version'),
    cpuArchitecture: text<CpuArchitecture>('cpu_architecture'),
    imageType: text<ImageType>('image_type'),
    pullSecret: text('pull_secret'),
    sshAuthorizedKey: text('ssh_authorized_key'),
    proxy: nullableJson('proxy'),
    additionalNtpSources: text('additional_ntp_sources'),
    staticNetworkConfig: nullableJson('static_network_config'),
    ignitionConfigOverride: text('ignition_config_override'),
    kernelArguments: nullableJson('kernel_arguments'),
    additionalTrustBundle: text('additional_trust_bundle'),
    imageTokenKey: text('image_token_key'),
    createdAt: timestamp('created_at'),
    updatedAt: timestamp('updated_at'),
    agentToken: nullableText('agent_token'),
    networkDiscoveryDelaySeconds: nullableNumber('network_discovery_delay_seconds'),
  },
};

export const HOSTS: Table<HostRecord> = {
  name: 'hosts',
  columns: {
    infraEnvId: text('infra_env_id'),
    id: text('id'),
    status: text<HostStatus>('status'),
    statusInfo: text('status_info'),
    validationsInfo: text('validations_info'),
    inventory: nullableText('inventory'),
    requestedHostname: text('requested_hostname'),
    role: text('role'),
    discoveryAgentVersion: text('discovery_agent_version'),
    progress: nullableJson('progress'),
    hostTimestamp: nullableNumber('host_timestamp'),
    checkedInAt: timestamp('checked_in_at'),
    registeredAt: timestamp('registered_at'),
    statusUpdatedAt: timestamp('status_updated_at'),
    createdAt: timestamp('created_at'),
    updatedAt: timestamp('updated_at'),
    logsInfo: text('logs_info'),
    logsStartedAt: nullableTimestamp('logs_started_at'),
  },
};

export const EVENTS: Table<EventRecord> = {
  name: 'events',
  columns: {
    name: text('name'),
    infraEnvId: nullableText('infra_env_id'),
    hostId: nullableText('host_id'),
    clusterId: nullableText('cluster_id'),
    severity: text<Severity>('severity'),
    message: text('message'),
    eventTime: timestamp('event_time'),
    props: optionalText('props'),
  },
};
