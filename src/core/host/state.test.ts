// decide() as a table: each row the validation results of a host and the state (with upstream's
// status_info sentence) the unbound state machine must put it in. A change to the order of the
// checks or to a sentence fails the row that shows it. Pure: refreshHost/setStatus, which store
// the outcome, are covered with the database in src/core/handlers/hosts.postgres.test.ts and monitor.postgres.test.ts.
import { describe, expect, it } from 'vitest';

import type { HostStatus } from '../model.js';
import { decide, DISCOVERY_STATUSES, failingValidations, STATUS_INFO } from './state.js';
import type { ValidationResult, ValidationStatus } from './validations.js';

const MESSAGES: Record<string, string> = {
  connected: 'connected message',
  'has-inventory': 'inventory message',
  'has-min-cpu-cores': 'The host … CPU cores for any role is 2, found only 1',
  'has-min-memory': 'The host … RAM for any role is 8.00 GiB, found only 4.00 GiB',
  'has-min-valid-disks': 'No eligible disks were found',
  'hostname-valid': 'The host name localhost is forbidden',
};

const ALL_SUCCESS: Record<string, ValidationStatus> = {
  connected: 'success',
  'has-inventory': 'success',
  'has-min-cpu-cores': 'success',
  'has-min-memory': 'success',
  'has-min-valid-disks': 'success',
  'hostname-valid': 'success',
};

/** Validation results from `id → status` (`undefined` leaves the validation out). */
function results(statuses: Record<string, ValidationStatus | undefined>): ValidationResult[] {
  return Object.entries(statuses)
    .filter((e): e is [string, ValidationStatus] => e[1] !== undefined)
    .map(([id, status]) => ({ id, status, message: MESSAGES[id] ?? `${id} message` }));
}

const insufficient = (failing: string): { status: HostStatus; statusInfo: string } => ({
  status: 'insufficient-unbound',
  statusInfo: `Host does not meet the minimum hardware requirements: ${failing}`,
});
const KNOWN = { status: 'known-unbound' as HostStatus, statusInfo: 'Host is ready to be bound to a cluster' };
const DISCOVERING = {
  status: 'discovering-unbound' as HostStatus,
  statusInfo: 'Waiting for host to send hardware details',
};
const DISCONNECTED = {
  status: 'disconnected-unbound' as HostStatus,
  statusInfo: 'Host has stopped communicating with the installation service',
};

interface Row {
  name: string;
  validations: Record<string, ValidationStatus | undefined>;
  expected: { status: HostStatus; statusInfo: string };
}

const ROWS: Row[] = [
  { name: 'everything passes: known', validations: ALL_SUCCESS, expected: KNOWN },
  { name: 'no validations at all: disconnected', validations: {}, expected: DISCONNECTED },
  {
    name: 'disconnected wins over everything else',
    validations: { ...ALL_SUCCESS, connected: 'failure' },
    expected: DISCONNECTED,
  },
  {
    name: 'connected pending counts as not connected',
    validations: { ...ALL_SUCCESS, connected: 'pending' },
    expected: DISCONNECTED,
  },
  {
    name: 'connected missing counts as not connected',
    validations: { ...ALL_SUCCESS, connected: undefined },
    expected: DISCONNECTED,
  },
  {
    name: 'disconnected and no inventory: disconnected',
    validations: { connected: 'failure', 'has-inventory': 'failure', 'hostname-valid': 'failure' },
    expected: DISCONNECTED,
  },
  {
    name: 'connected without inventory: discovering (the failing hardware checks do not matter yet)',
    validations: {
      connected: 'success',
      'has-inventory': 'failure',
      'has-min-cpu-cores': 'pending',
      'has-min-memory': 'pending',
      'has-min-valid-disks': 'pending',
      'hostname-valid': 'failure',
    },
    expected: DISCOVERING,
  },
  {
    name: 'inventory validation missing: discovering',
    validations: { ...ALL_SUCCESS, 'has-inventory': undefined },
    expected: DISCOVERING,
  },
  {
    name: 'too few cores: insufficient, naming the failure',
    validations: { ...ALL_SUCCESS, 'has-min-cpu-cores': 'failure' },
    expected: insufficient(MESSAGES['has-min-cpu-cores']!),
  },
  {
    name: 'two failures: their messages sorted (not their ids), joined by " ; "',
    validations: { ...ALL_SUCCESS, 'has-min-memory': 'failure', 'hostname-valid': 'failure' },
    expected: insufficient(`${MESSAGES['hostname-valid']} ; ${MESSAGES['has-min-memory']}`),
  },
  {
    name: 'a disk error (not a failure) is insufficient, and lists no failing message',
    validations: { ...ALL_SUCCESS, 'has-min-valid-disks': 'error' },
    expected: insufficient(''),
  },
  {
    name: 'a pending hardware check is insufficient',
    validations: { ...ALL_SUCCESS, 'has-min-memory': 'pending' },
    expected: insufficient(''),
  },
  {
    name: 'a missing hostname validation is insufficient',
    validations: { ...ALL_SUCCESS, 'hostname-valid': undefined },
    expected: insufficient(''),
  },
  {
    name: 'a failing validation outside the bound minimum does not block known',
    validations: { ...ALL_SUCCESS, 'ntp-synced': 'failure' },
    expected: KNOWN,
  },
  {
    name: 'but it is listed when the host is insufficient anyway',
    validations: { ...ALL_SUCCESS, 'ntp-synced': 'failure', 'has-min-cpu-cores': 'failure' },
    expected: insufficient(`${MESSAGES['has-min-cpu-cores']} ; ntp-synced message`),
  },
];

describe('decide: table', () => {
  it.each(ROWS.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    expect(decide(results(row.validations))).toEqual(row.expected);
  });

  it('answers only states the monitor and heartbeats re-evaluate', () => {
    for (const row of ROWS) expect(DISCOVERY_STATUSES).toContain(decide(results(row.validations)).status);
  });
});

describe('failingValidations', () => {
  it('keeps failures only (not errors or pending), sorted by message', () => {
    const v: ValidationResult[] = [
      { id: 'b', status: 'failure', message: 'zeta' },
      { id: 'a', status: 'error', message: 'error message' },
      { id: 'c', status: 'failure', message: 'alpha' },
      { id: 'd', status: 'pending', message: 'pending message' },
    ];
    expect(failingValidations(v)).toBe('alpha ; zeta');
    expect(failingValidations([])).toBe('');
  });

  it('fills the insufficient sentence’s placeholder', () => {
    expect(STATUS_INFO.insufficient).toContain('$FAILING_VALIDATIONS');
  });
});
