// Host validations in upstream's ids, categories, statuses and message wording.
//
// Implements connected, has-inventory, has-min-cpu-cores, has-min-memory,
// has-min-valid-disks, hostname-valid, with the minimum hardware of any role (upstream's default
// worker requirements: 2 cores, 8 GiB, one eligible disk of 100 GB). hostname-unique is not
// output: upstream's validator answers success-suppress-output for hosts of an InfraEnv without
// a cluster (internal/host/validator.go isHostnameUnique), and every host here is one. Pure
// functions; no storage.
import type { HostRecord } from '../model.js';

export type ValidationStatus = 'success' | 'failure' | 'pending' | 'error';

export interface ValidationResult {
  id: string;
  status: ValidationStatus;
  message: string;
}

export const MIN_CPU_CORES = 2;
export const MIN_RAM_MIB = 8192;
export const MIN_DISK_SIZE_BYTES = 100 * 1000 ** 3;
const HOSTNAME_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$';
const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);
const FORBIDDEN_HOSTNAMES = [
  'localhost',
  'localhost.localdomain',
  'localhost4',
  'localhost4.localdomain4',
  'localhost6',
  'localhost6.localdomain6',
];

const CATEGORY: Record<string, 'network' | 'hardware'> = {
  connected: 'network',
  'has-inventory': 'hardware',
  'has-min-cpu-cores': 'hardware',
  'has-min-memory': 'hardware',
  'has-min-valid-disks': 'hardware',
  'hostname-valid': 'hardware',
};

export interface Inventory {
  hostname?: string;
  cpu?: { count?: number };
  memory?: { physical_bytes?: number; usable_bytes?: number };
  disks?: {
    name?: string;
    size_bytes?: number;
    drive_type?: string;
    installation_eligibility?: { eligible?: boolean; not_eligible_reasons?: string[] };
  }[];
  interfaces?: { mac_address?: string }[];
}

export function parseInventory(text: string | null): Inventory | undefined {
  if (text === null) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Inventory) : undefined;
  } catch {
    return undefined;
  }
}

export function realHostname(h: HostRecord, inv: Inventory | undefined): string {
  return h.requestedHostname || inv?.hostname || '';
}

/** "8.00 GiB" style, as upstream's conversions.BytesToString. */
export function bytesToString(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(2)} ${units[i]}`;
}

export function hostnameError(name: string): string | undefined {
  if (FORBIDDEN_HOSTNAMES.includes(name)) return `The host name ${name} is forbidden`;
  if (name.length > 63 || !HOSTNAME_RE.test(name))
    return `Hostname ${name} is forbidden, hostname should match pattern ${HOSTNAME_PATTERN}`;
  return undefined;
}

function eligibleDisks(inv: Inventory): number {
  return (inv.disks ?? []).filter(
    (d) => d.installation_eligibility?.eligible !== false && (d.size_bytes ?? 0) >= MIN_DISK_SIZE_BYTES,
  ).length;
}

export function runValidations(h: HostRecord, now: Date, maxDisconnectionMs: number): ValidationResult[] {
  const inv = parseInventory(h.inventory);
  const out: ValidationResult[] = [];
  const connected = now.getTime() - h.checkedInAt.getTime() <= maxDisconnectionMs;
  out.push({
    id: 'connected',
    status: connected ? 'success' : 'failure',
    message: connected ? 'Host is connected' : 'Host is disconnected',
  });
  out.push(
    inv
      ? { id: 'has-inventory', status: 'success', message: 'Valid inventory exists for the host' }
      : { id: 'has-inventory', status: 'failure', message: 'Inventory has not been received for the host' },
  );
  if (!inv) {
    for (const id of ['has-min-cpu-cores', 'has-min-memory', 'has-min-valid-disks', 'hostname-valid']) {
      out.push({ id, status: id === 'hostname-valid' ? 'failure' : 'pending', message: 'Missing inventory' });
    }
    return out;
  }
  const cores = inv.cpu?.count ?? 0;
  out.push(
    cores >= MIN_CPU_CORES
      ? { id: 'has-min-cpu-cores', status: 'success', message: 'Sufficient CPU cores' }
      : {
          id: 'has-min-cpu-cores',
          status: 'failure',
          message: `The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is ${MIN_CPU_CORES}, found only ${cores}`,
        },
  );
  const ram = inv.memory?.physical_bytes ?? 0;
  const minRam = MIN_RAM_MIB * 1024 * 1024;
  out.push(
    ram >= minRam
      ? { id: 'has-min-memory', status: 'success', message: 'Sufficient minimum RAM' }
      : {
          id: 'has-min-memory',
          status: 'failure',
          message: `The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is ${bytesToString(minRam)}, found only ${bytesToString(ram)}`,
        },
  );
  if (!inv.disks || inv.disks.length === 0) {
    out.push({ id: 'has-min-valid-disks', status: 'error', message: 'Failed to detected disks' });
  } else if (eligibleDisks(inv) > 0) {
    out.push({ id: 'has-min-valid-disks', status: 'success', message: 'Sufficient disk capacity' });
  } else {
    out.push({
      id: 'has-min-valid-disks',
      status: 'failure',
      message: 'No eligible disks were found, please check specific disks to see why they are not eligible',
    });
  }
  const name = realHostname(h, inv);
  const err = hostnameError(name);
  out.push(
    err
      ? { id: 'hostname-valid', status: 'failure', message: err }
      : { id: 'hostname-valid', status: 'success', message: `Hostname ${name} is allowed` },
  );
  return out;
}

/** validations_info JSON: `{"hardware":[...],"network":[...]}`, each list sorted by id. */
export function validationsInfo(results: readonly ValidationResult[]): string {
  const grouped: Record<string, ValidationResult[]> = {};
  for (const r of results) (grouped[CATEGORY[r.id] ?? 'hardware'] ??= []).push(r);
  const sorted: Record<string, ValidationResult[]> = {};
  for (const cat of Object.keys(grouped).sort()) sorted[cat] = grouped[cat]!.sort((a, b) => a.id.localeCompare(b.id));
  return JSON.stringify(sorted);
}
