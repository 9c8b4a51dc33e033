// How the core's tables travel in `bootsmith db export|import` (src/platform/db/dump.ts): every row
// of infra_envs, image_url_tokens (the short URLs handed out: only their hashes), hosts, events and
// service_keys (the signing keys, so agent and image tokens stay valid).
// Does NOT: order the document (src/service-database.ts puts every wing's tables in order).
import type { DumpTable } from '../../platform/db/dump.js';

/** Events have no natural key: one with the same time, subject and message is the same event. */
const EVENT_ALREADY_THERE = `WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.event_time = r.event_time AND e.name = r.name
  AND e.message = r.message AND e.infra_env_id IS NOT DISTINCT FROM r.infra_env_id AND e.host_id IS NOT DISTINCT FROM r.host_id)`;

export const CORE_DUMP_TABLES = {
  infraEnvs: { name: 'infra_envs', existing: { key: '(id)' }, skip: [], order: 'id' },
  imageUrlTokens: {
    name: 'image_url_tokens',
    existing: { key: '(token_hash)' },
    skip: ['seq'],
    order: 'infra_env_id, seq',
  },
  hosts: { name: 'hosts', existing: { key: '(infra_env_id, id)' }, skip: [], order: 'infra_env_id, id' },
  events: { name: 'events', existing: { notExists: EVENT_ALREADY_THERE }, skip: ['seq'], order: 'seq' },
  serviceKeys: { name: 'service_keys', existing: { key: '(name)' }, skip: [], order: 'name' },
} as const satisfies Record<string, DumpTable>;
