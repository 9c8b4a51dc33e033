// runValidations() as a table: each row a host (how long since its last check-in, its inventory,
// its requested host name) and the validations it must get, in upstream's ids, statuses and
// wording; then validations_info's grouping and bytesToString's units. Pure: no storage, no clock
// (the row says the time).
import { describe, expect, it } from 'vitest';

import type { HostRecord } from '../model.js';
import {
  bytesToString,
  MIN_DISK_SIZE_BYTES,
  runValidations,
  validationsInfo,
  type Inventory,
  type ValidationResult,
} from './validations.js';

const NOW = new Date('2026-01-01T12:00:00Z');
const MAX_DISCONNECTION_MS = 180_000;
const GIB = 1024 ** 3;

function host(checkedInAgoMs: number, inventory: string | null, requestedHostname = ''): HostRecord {
  const at = new Date(NOW.getTime() - checkedInAgoMs);
  return {
    infraEnvId: '7f2a3a4e-0000-4000-8000-000000000001',
    id: '7f2a3a4e-0000-4000-8000-000000000002',
    status: 'discovering-unbound',
    statusInfo: '',
    validationsInfo: '',
    inventory,
    requestedHostname,
    role: 'auto-assign',
    discoveryAgentVersion: '',
    progress: null,
    hostTimestamp: null,
    checkedInAt: at,
    registeredAt: at,
    statusUpdatedAt: at,
    createdAt: at,
    updatedAt: at,
    logsInfo: '',
    logsStartedAt: null,
  };
}

/** An inventory that passes every check; rows override one field. */
const GOOD: Inventory = {
  hostname: 'worker-1',
  cpu: { count: 4 },
  memory: { physical_bytes: 16 * GIB },
  disks: [{ name: 'sda', size_bytes: 120 * 1000 ** 3, installation_eligibility: { eligible: true } }],
};
const inv = (override: Partial<Inventory> = {}): string => JSON.stringify({ ...GOOD, ...override });

const CONNECTED: ValidationResult = { id: 'connected', status: 'success', message: 'Host is connected' };
const HAS_INVENTORY: ValidationResult = {
  id: 'has-inventory',
  status: 'success',
  message: 'Valid inventory exists for the host',
};
const CPU_OK: ValidationResult = { id: 'has-min-cpu-cores', status: 'success', message: 'Sufficient CPU cores' };
const MEMORY_OK: ValidationResult = { id: 'has-min-memory', status: 'success', message: 'Sufficient minimum RAM' };
const DISKS_OK: ValidationResult = {
  id: 'has-min-valid-disks',
  status: 'success',
  message: 'Sufficient disk capacity',
};
const hostnameOk = (name: string): ValidationResult => ({
  id: 'hostname-valid',
  status: 'success',
  message: `Hostname ${name} is allowed`,
});
const NO_INVENTORY: ValidationResult[] = [
  { id: 'has-inventory', status: 'failure', message: 'Inventory has not been received for the host' },
  { id: 'has-min-cpu-cores', status: 'pending', message: 'Missing inventory' },
  { id: 'has-min-memory', status: 'pending', message: 'Missing inventory' },
  { id: 'has-min-valid-disks', status: 'pending', message: 'Missing inventory' },
  { id: 'hostname-valid', status: 'failure', message: 'Missing inventory' },
];
const HOSTNAME_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$';
const NO_ELIGIBLE_DISK: ValidationResult = {
  id: 'has-min-valid-disks',
  status: 'failure',
  message: 'No eligible disks were found, please check specific disks to see why they are not eligible',
};

interface Row {
  name: string;
  checkedInAgoMs?: number;
  inventory: string | null;
  requestedHostname?: string;
  expected: ValidationResult[];
}

const ROWS: Row[] = [
  { name: 'no inventory yet', inventory: null, expected: [CONNECTED, ...NO_INVENTORY] },
  {
    name: 'no inventory, silent one millisecond past the limit',
    checkedInAgoMs: MAX_DISCONNECTION_MS + 1,
    inventory: null,
    expected: [{ id: 'connected', status: 'failure', message: 'Host is disconnected' }, ...NO_INVENTORY],
  },
  {
    name: 'silent exactly the limit: still connected',
    checkedInAgoMs: MAX_DISCONNECTION_MS,
    inventory: null,
    expected: [CONNECTED, ...NO_INVENTORY],
  },
  { name: 'inventory that is not JSON counts as none', inventory: '{"cpu":', expected: [CONNECTED, ...NO_INVENTORY] },
  { name: 'inventory JSON that is no object counts as none', inventory: '42', expected: [CONNECTED, ...NO_INVENTORY] },
  {
    name: 'a good inventory passes everything',
    inventory: inv(),
    expected: [CONNECTED, HAS_INVENTORY, CPU_OK, MEMORY_OK, DISKS_OK, hostnameOk('worker-1')],
  },
  {
    name: 'a disconnected host with a good inventory',
    checkedInAgoMs: MAX_DISCONNECTION_MS + 60_000,
    inventory: inv(),
    expected: [
      { id: 'connected', status: 'failure', message: 'Host is disconnected' },
      HAS_INVENTORY,
      CPU_OK,
      MEMORY_OK,
      DISKS_OK,
      hostnameOk('worker-1'),
    ],
  },
  {
    name: 'exactly the minimum cores and RAM',
    inventory: inv({ cpu: { count: 2 }, memory: { physical_bytes: 8 * GIB } }),
    expected: [CONNECTED, HAS_INVENTORY, CPU_OK, MEMORY_OK, DISKS_OK, hostnameOk('worker-1')],
  },
  {
    name: 'one core',
    inventory: inv({ cpu: { count: 1 } }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      {
        id: 'has-min-cpu-cores',
        status: 'failure',
        message:
          'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
      },
      MEMORY_OK,
      DISKS_OK,
      hostnameOk('worker-1'),
    ],
  },
  {
    name: 'no cpu and memory sections: zero of each',
    inventory: JSON.stringify({ hostname: 'worker-1', disks: GOOD.disks }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      {
        id: 'has-min-cpu-cores',
        status: 'failure',
        message:
          'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 0',
      },
      {
        id: 'has-min-memory',
        status: 'failure',
        message:
          'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 0 bytes',
      },
      DISKS_OK,
      hostnameOk('worker-1'),
    ],
  },
  {
    name: 'one byte short of 8 GiB of RAM (usable bytes do not count)',
    inventory: inv({ memory: { physical_bytes: 8 * GIB - 1, usable_bytes: 64 * GIB } }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      CPU_OK,
      {
        id: 'has-min-memory',
        status: 'failure',
        message:
          'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 8.00 GiB',
      },
      DISKS_OK,
      hostnameOk('worker-1'),
    ],
  },
  {
    name: 'no disks section: an error, not a failure',
    inventory: JSON.stringify({ ...GOOD, disks: undefined }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      CPU_OK,
      MEMORY_OK,
      { id: 'has-min-valid-disks', status: 'error', message: 'Failed to detected disks' },
      hostnameOk('worker-1'),
    ],
  },
  {
    name: 'an empty disk list: an error',
    inventory: inv({ disks: [] }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      CPU_OK,
      MEMORY_OK,
      { id: 'has-min-valid-disks', status: 'error', message: 'Failed to detected disks' },
      hostnameOk('worker-1'),
    ],
  },
  {
    name: 'a disk one byte short of 100 GB',
    inventory: inv({ disks: [{ name: 'sda', size_bytes: MIN_DISK_SIZE_BYTES - 1 }] }),
    expected: [CONNECTED, HAS_INVENTORY, CPU_OK, MEMORY_OK, NO_ELIGIBLE_DISK, hostnameOk('worker-1')],
  },
  {
    name: 'a large disk the agent marks not eligible',
    inventory: inv({
      disks: [
        {
          name: 'sda',
          size_bytes: 2 * MIN_DISK_SIZE_BYTES,
          installation_eligibility: { eligible: false, not_eligible_reasons: ['removable'] },
        },
      ],
    }),
    expected: [CONNECTED, HAS_INVENTORY, CPU_OK, MEMORY_OK, NO_ELIGIBLE_DISK, hostnameOk('worker-1')],
  },
  {
    name: 'one eligible disk among ineligible ones; no eligibility section means eligible',
    inventory: inv({
      disks: [
        { name: 'sda', size_bytes: 1000 },
        { name: 'sdb', size_bytes: MIN_DISK_SIZE_BYTES },
      ],
    }),
    expected: [CONNECTED, HAS_INVENTORY, CPU_OK, MEMORY_OK, DISKS_OK, hostnameOk('worker-1')],
  },
  {
    name: 'the requested host name wins over the inventory’s',
    inventory: inv({ hostname: 'localhost' }),
    requestedHostname: 'node-a.example.com',
    expected: [CONNECTED, HAS_INVENTORY, CPU_OK, MEMORY_OK, DISKS_OK, hostnameOk('node-a.example.com')],
  },
  {
    name: 'localhost is forbidden',
    inventory: inv({ hostname: 'localhost' }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      CPU_OK,
      MEMORY_OK,
      DISKS_OK,
      { id: 'hostname-valid', status: 'failure', message: 'The host name localhost is forbidden' },
    ],
  },
  {
    name: 'localhost6.localdomain6 is forbidden',
    inventory: inv({ hostname: 'localhost6.localdomain6' }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      CPU_OK,
      MEMORY_OK,
      DISKS_OK,
      { id: 'hostname-valid', status: 'failure', message: 'The host name localhost6.localdomain6 is forbidden' },
    ],
  },
  ...['Worker-1', 'worker_1', '-worker', 'a'.repeat(64), 'a..b', ''].map((name): Row => ({
    name: `host name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…(${name.length})` : name)} does not match the pattern`,
    inventory: inv({ hostname: name }),
    expected: [
      CONNECTED,
      HAS_INVENTORY,
      CPU_OK,
      MEMORY_OK,
      DISKS_OK,
      {
        id: 'hostname-valid',
        status: 'failure',
        message: `Hostname ${name} is forbidden, hostname should match pattern ${HOSTNAME_PATTERN}`,
      },
    ],
  })),
  {
    name: 'a 63-character label is allowed',
    inventory: inv({ hostname: `${'a'.repeat(63)}` }),
    expected: [CONNECTED, HAS_INVENTORY, CPU_OK, MEMORY_OK, DISKS_OK, hostnameOk('a'.repeat(63))],
  },
];

describe('runValidations: table', () => {
  it.each(ROWS.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const h = host(row.checkedInAgoMs ?? 0, row.inventory, row.requestedHostname);
    expect(runValidations(h, NOW, MAX_DISCONNECTION_MS)).toEqual(row.expected);
  });
});

describe('validationsInfo', () => {
  it('groups by category (network, hardware), categories and ids sorted', () => {
    const results = runValidations(host(0, inv({ cpu: { count: 1 } })), NOW, MAX_DISCONNECTION_MS);
    const info = JSON.parse(validationsInfo(results)) as Record<string, ValidationResult[]>;
    expect(Object.keys(info)).toEqual(['hardware', 'network']);
    expect(info.network).toEqual([CONNECTED]);
    expect(info.hardware!.map((v) => v.id)).toEqual([
      'has-inventory',
      'has-min-cpu-cores',
      'has-min-memory',
      'has-min-valid-disks',
      'hostname-valid',
    ]);
    expect(info.hardware!.find((v) => v.id === 'has-min-cpu-cores')?.status).toBe('failure');
  });

  it('puts an id it has no category for under hardware', () => {
    expect(validationsInfo([{ id: 'zz-new', status: 'success', message: 'm' }])).toBe(
      '{"hardware":[{"id":"zz-new","status":"success","message":"m"}]}',
    );
  });
});

describe('bytesToString: table', () => {
  it.each([
    [0, '0 bytes'],
    [1023, '1023 bytes'],
    [1024, '1.00 KiB'],
    [1536, '1.50 KiB'],
    [8 * GIB, '8.00 GiB'],
    [8 * GIB - 1, '8.00 GiB'],
    [3 * 1024 ** 5, '3.00 PiB'],
    [2048 * 1024 ** 5, '2048.00 PiB'],
  ])('%d → %s', (n, text) => {
    expect(bytesToString(n)).toBe(text);
  });
});
