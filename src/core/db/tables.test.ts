// The SQL the core's column maps generate (./tables.ts through src/platform/db/column-map.ts) and
// their codecs, spelled out: pure. The same maps against real PostgreSQL are repository.postgres.test.ts.
import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../model.js';
import {
  insertSql,
  paramsOf,
  recordFromRow,
  selectSql,
  updateByKeySql,
  upsertSql,
} from '../../platform/db/column-map.js';
import { EVENTS, HOSTS, INFRA_ENVS } from './tables.js';

const squash = (sql: string) =>
  sql
    .replace(/\s+/g, ' ')
    .replace(/\s*,\s*/g, ', ')
    .replace(/\s*=\s*/g, ' = ')
    .trim();

describe('generated SQL', () => {
  it('infra_envs INSERT names the 19 columns in record order with $1..$19', () => {
    expect(squash(insertSql(INFRA_ENVS))).toBe(
      squash(`INSERT INTO infra_envs (id, name, cluster_id, openshift_version,
      cpu_architecture, image_type, pull_secret, ssh_authorized_key, proxy, additional_ntp_sources, static_network_config,
      ignition_config_override, kernel_arguments, additional_trust_bundle, image_token_key, created_at, updated_at, agent_token,
      network_discovery_delay_seconds)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`),
    );
  });

  it('infra_envs UPDATE sets every other column and keys on id = $1', () => {
    expect(squash(updateByKeySql(INFRA_ENVS, ['id']))).toBe(
      squash(`UPDATE infra_envs SET name=$2, cluster_id=$3,
      openshift_version=$4, cpu_architecture=$5, image_type=$6, pull_secret=$7, ssh_authorized_key=$8, proxy=$9,
      additional_ntp_sources=$10, static_network_config=$11, ignition_config_override=$12, kernel_arguments=$13,
      additional_trust_bundle=$14, image_token_key=$15, created_at=$16, updated_at=$17, agent_token=$18,
      network_discovery_delay_seconds=$19 WHERE id=$1`),
    );
  });

  it('hosts upsert overwrites everything but the key and created_at', () => {
    expect(squash(upsertSql(HOSTS, ['infraEnvId', 'id'], ['createdAt']))).toBe(
      squash(`INSERT INTO hosts (infra_env_id, id,
      status, status_info, validations_info, inventory, requested_hostname, role, discovery_agent_version, progress,
      host_timestamp, checked_in_at, registered_at, status_updated_at, created_at, updated_at, logs_info, logs_started_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
      ON CONFLICT (infra_env_id, id) DO UPDATE SET status=EXCLUDED.status, status_info=EXCLUDED.status_info,
      validations_info=EXCLUDED.validations_info, inventory=EXCLUDED.inventory,
      requested_hostname=EXCLUDED.requested_hostname, role=EXCLUDED.role,
      discovery_agent_version=EXCLUDED.discovery_agent_version, progress=EXCLUDED.progress,
      host_timestamp=EXCLUDED.host_timestamp, checked_in_at=EXCLUDED.checked_in_at,
      registered_at=EXCLUDED.registered_at, status_updated_at=EXCLUDED.status_updated_at,
      updated_at=EXCLUDED.updated_at, logs_info=EXCLUDED.logs_info, logs_started_at=EXCLUDED.logs_started_at`),
    );
  });

  it('events SELECT lists the mapped columns plus the extra ones asked for', () => {
    expect(selectSql(EVENTS, ['seq'])).toBe(
      'SELECT name, infra_env_id, host_id, cluster_id, severity, message, event_time, props, seq FROM events',
    );
  });

  it('codecs: JSON fields are stringified, null stays null, an absent optional field becomes NULL', () => {
    const ev: EventRecord = {
      name: 'x',
      infraEnvId: null,
      hostId: null,
      clusterId: null,
      severity: 'info',
      message: 'm',
      eventTime: new Date(0),
    };
    expect(paramsOf(EVENTS, ev)).toEqual(['x', null, null, null, 'info', 'm', new Date(0), null]);
    const back = recordFromRow(EVENTS, {
      name: 'x',
      infra_env_id: null,
      host_id: null,
      cluster_id: null,
      severity: 'info',
      message: 'm',
      event_time: '1970-01-01T00:00:00.000Z',
      props: null,
    });
    expect(back).toStrictEqual(ev); // no `props: undefined` key
  });
});
