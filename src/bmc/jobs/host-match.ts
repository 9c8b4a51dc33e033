// Which registered host is the machine behind a BMC. Pure; tested as a table.
//
// A host matches a BMC when its id is the System's UUID (the agent's host id is the SMBIOS product
// UUID, which the BMC reports as ComputerSystem.UUID; the first three fields are also tried
// byte-swapped, since SMBIOS before 2.6 and some firmware store them in the other byte order), or
// when one of the MACs of its inventory's interfaces is among the BMC's EthernetInterfaces MACs.
// Only hosts registered at or after `since` (the job's insert) count: a host record from an
// earlier boot of the same machine is not this boot's registration. Among several, the latest.
// Does NOT: read the database (the caller passes the InfraEnv's hosts).
import type { RegisteredHost } from '../core-port.js';

/** A host a BMC's machine may be: one the InfraEnv registered since the job's insert. */
export type HostCandidate = RegisteredHost;

export interface HostMatch {
  hostId: string;
  matchedBy: 'system-uuid' | 'mac';
  /** The MAC that matched (matchedBy `mac`). */
  mac?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The UUID and its variant with the first three fields byte-swapped, lower case; [] when not a UUID. */
export function uuidForms(uuid: string | undefined): string[] {
  const u = (uuid ?? '').trim().toLowerCase();
  if (!UUID.test(u)) return [];
  const swap = (hex: string): string => (hex.match(/../g) ?? []).reverse().join('');
  const [a, b, c, ...rest] = u.split('-') as [string, string, string, ...string[]];
  const swapped = [swap(a), swap(b), swap(c), ...rest].join('-');
  return swapped === u ? [u] : [u, swapped];
}

export function normalizeMac(mac: string): string {
  return mac.trim().toLowerCase().replace(/-/g, ':');
}

/** The MACs of an agent inventory's interfaces, lower case; [] when there is none or it is not JSON. */
export function inventoryMacs(inventory: string | null): string[] {
  if (!inventory) return [];
  try {
    const doc = JSON.parse(inventory) as { interfaces?: { mac_address?: unknown }[] };
    return (doc.interfaces ?? [])
      .map((i) => (typeof i?.mac_address === 'string' ? normalizeMac(i.mac_address) : ''))
      .filter((m) => m !== '');
  } catch {
    return [];
  }
}

export function matchHost(
  hosts: readonly HostCandidate[],
  bmc: { systemUuid: string | undefined; macs: readonly string[] },
  since: Date,
): HostMatch | undefined {
  const uuids = new Set(uuidForms(bmc.systemUuid));
  const macs = new Set(bmc.macs.map(normalizeMac));
  const recent = hosts
    .filter((h) => h.registeredAt.getTime() >= since.getTime())
    .sort((a, b) => b.registeredAt.getTime() - a.registeredAt.getTime());
  for (const host of recent) {
    if (uuids.has(host.id.toLowerCase())) return { hostId: host.id, matchedBy: 'system-uuid' };
    const mac = inventoryMacs(host.inventory).find((m) => macs.has(m));
    if (mac) return { hostId: host.id, matchedBy: 'mac', mac };
  }
  return undefined;
}
