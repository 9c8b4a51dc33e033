// The service's migrations as databases have recorded them: the same versions, names and SQL, in
// the same order, as when one list in the core held them all (before the BMC wing's moved to
// src/bmc/store/migrations.ts). A database an earlier bootsmith migrated holds these records and
// must upgrade exactly as before, so a renumbered, renamed or edited migration fails here; a new
// one is appended to the table. And the dump: every wing's table in it once, in the document's
// order. Pure; applied to PostgreSQL in service-database.postgres.test.ts.
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { BMC_DUMP_TABLES } from './bmc/store/dump-tables.js';
import { CORE_DUMP_TABLES } from './core/db/dump-tables.js';
import { FRONT_DOOR_DUMP_TABLES } from './front-door/assignments/migrations.js';
import { migrationOrder } from './platform/db/migration-runner.js';
import { SERVICE_DUMP_TABLES, SERVICE_MIGRATIONS } from './service-database.js';

/** version, name, sha256 of the SQL: as the single list of the core applied them up to issue 36. */
const RECORDED: [number, string, string][] = [
  [1, 'infra envs, hosts, events, service keys', 'fce2d4daa577a0e67b500bc6183a02cf667294b6ff40c3f3ddde1213358187eb'],
  [2, 'stable per-infra-env agent token', '27b61cf316f2b07a87269898233d65d068f985121c2d1674e454093e606e5f43'],
  [
    3,
    'hosts by check-in time, for the disconnection monitor',
    '4ec7764bea54640941f3e40117f2b0dfb211989953baea4bd4899d5287a7e36b',
  ],
  [
    4,
    'short image-URL tokens, stored as sha256 hashes',
    '6b3023e3c88782fb4978b34522d0d2e7d708e71abc02cd87b0824eb9847b72ce',
  ],
  [
    5,
    "upstream's unbound host states, logs progress, network_discovery_delay_seconds",
    '47564f893a42b6d4be6e1e48131ba4e7c6133860edadd2f9cf921d485e6af449',
  ],
  [6, 'events by time, for retention by age', 'f84e8f7fdf109cd5c4247f8c2b5d74f2dbe14ff83f689e00e939d91a51db0348'],
  [
    7,
    'BMC records, BMC jobs (one active job per BMC), reads of a boot job ISO URL',
    'd5eb794604110c458dce4c2657fef9e105d67034abc296193dca57e989a5216a',
  ],
  [
    8,
    'BMC jobs count the claims that found their holder gone (died or stalled past the lease)',
    'c57741161eebb8a17a1b770fa2ebbdb4ff4c74a46fd3bed3a5ca749d63e6f388',
  ],
  [
    9,
    'BMC boot method: virtual media or UEFI HTTP Boot (NULL = auto: by profile and what the System lists)',
    'f3f40891f5d50901f26f39c50bef41a783297a82b58f8afda8d842207102ce17',
  ],
  [
    10,
    'PXE front door: host assignments by MAC or System UUID',
    '9f85ecd2de6f6b3e040f75154bc42d874ccc237e957bee218ffd8a9e63a40726',
  ],
];

it('applies the recorded migrations in their order, each with its version, name and SQL unchanged', () => {
  const applied = migrationOrder(SERVICE_MIGRATIONS).map((m) => [
    m.version,
    m.name,
    createHash('sha256').update(m.sql).digest('hex'),
  ]);
  expect(applied.slice(0, RECORDED.length)).toEqual(RECORDED);
});

it('carries every table a wing exports, once, in the order the document has always had', () => {
  const names = SERVICE_DUMP_TABLES.map((t) => t.name);
  expect(names).toEqual([
    'infra_envs',
    'bmcs',
    'image_url_tokens',
    'hosts',
    'events',
    'service_keys',
    'pxe_assignments',
  ]);
  expect([...SERVICE_DUMP_TABLES].sort((a, b) => a.name.localeCompare(b.name))).toEqual(
    [
      ...Object.values(CORE_DUMP_TABLES),
      ...Object.values(BMC_DUMP_TABLES),
      ...Object.values(FRONT_DOOR_DUMP_TABLES),
    ].sort((a, b) => a.name.localeCompare(b.name)),
  );
});
