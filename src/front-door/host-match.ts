// Which InfraEnv a booting host belongs to, decided in the order, first answer wins:
//   1. an explicit assignment (its MAC, else its System UUID → InfraEnv: API, CLI);
//   2. the BMC wing: a BMC bound to an InfraEnv reported this MAC or System UUID;
//   3. an InfraEnv's static network config maps this MAC (mac_interface_map): exactly one;
//   4. an earlier registration: the newest host with this MAC on an interface or this System
//      UUID as its id;
//   5. the configured default InfraEnv (PXE_DEFAULT_INFRA_ENV), when it exists;
// else no match, with the reason the host is told. Every answer says why, in words an operator
// reads in the host's boot event ("assigned by MAC …", "MAC … in the mac_interface_map of …").
// Pure apart from the lookups it is handed (each one indexed query or a memory read).
// Does NOT: read the database itself, render anything (./front-door.ts), or record the event.
import type { HostIdentity } from './host-identity.js';
import { uuidByteOrders } from './host-identity.js';

export type MatchVia = 'assignment' | 'bmc' | 'static-network' | 'registration' | 'default';

export interface HostMatch {
  matched: true;
  infraEnvId: string;
  via: MatchVia;
  /** Why, for the event and the logs: names the key that matched. */
  why: string;
  /** The host's registration, when that is how it matched (the event names it). */
  hostId?: string;
  /** Boot it through shim → signed GRUB (its assignment says so; firmware does not announce Secure Boot). */
  secureBoot: boolean;
}

export interface NoMatch {
  matched: false;
  /** What the host is told on its console, and the event says. */
  reason: string;
}

export interface AssignmentHit {
  infraEnvId: string;
  key: { kind: 'mac' | 'uuid'; value: string };
  secureBoot: boolean;
}

/** The lookups, in the order they are asked (uuids: both byte orders of the host's UUID). */
export interface MatchSources {
  assignment(mac: string | undefined, uuids: readonly string[]): Promise<AssignmentHit | undefined>;
  bmc(
    mac: string | undefined,
    uuids: readonly string[],
  ): Promise<{ infraEnvId: string; bmcName: string; by: 'mac' | 'system-uuid' } | undefined>;
  staticNetwork(mac: string): Promise<string[]>;
  registrations(
    mac: string | undefined,
    uuids: readonly string[],
  ): Promise<{ infraEnvId: string; hostId: string; by: 'mac' | 'system-uuid' }[]>;
  infraEnvExists(id: string): Promise<boolean>;
}

export async function matchHost(
  host: Pick<HostIdentity, 'mac' | 'uuid'>,
  sources: MatchSources,
  defaultInfraEnv: string | undefined,
): Promise<HostMatch | NoMatch> {
  const { mac } = host;
  const uuids = uuidByteOrders(host.uuid);
  const hit = (infraEnvId: string, via: MatchVia, why: string, extra: Partial<HostMatch> = {}): HostMatch => ({
    matched: true,
    infraEnvId,
    via,
    why,
    secureBoot: false,
    ...extra,
  });

  const assigned = await sources.assignment(mac, uuids);
  if (assigned) {
    const key = assigned.key.kind === 'mac' ? `MAC ${assigned.key.value}` : `System UUID ${assigned.key.value}`;
    return hit(assigned.infraEnvId, 'assignment', `assigned by ${key}`, { secureBoot: assigned.secureBoot });
  }

  const bmc = await sources.bmc(mac, uuids);
  if (bmc) {
    const key = bmc.by === 'mac' ? `MAC ${mac ?? ''}` : 'System UUID';
    return hit(bmc.infraEnvId, 'bmc', `its BMC ${bmc.bmcName} reported its ${key}`);
  }

  let ambiguity = '';
  if (mac !== undefined) {
    const maps = await sources.staticNetwork(mac);
    if (maps.length === 1) return hit(maps[0]!, 'static-network', `MAC ${mac} is in the InfraEnv's mac_interface_map`);
    if (maps.length > 1)
      ambiguity = `MAC ${mac} is in the mac_interface_map of ${maps.length} InfraEnvs (${maps.join(', ')}); assign it to one. `;
  }

  const [newest, ...older] = await sources.registrations(mac, uuids);
  if (newest) {
    const key = newest.by === 'mac' ? `MAC ${mac ?? ''}` : 'System UUID';
    const more = older.some((r) => r.infraEnvId !== newest.infraEnvId)
      ? ` (the newest of ${older.length + 1} registrations in more than one InfraEnv)`
      : '';
    return hit(newest.infraEnvId, 'registration', `host ${newest.hostId} registered with its ${key}${more}`, {
      hostId: newest.hostId,
    });
  }

  if (defaultInfraEnv !== undefined) {
    if (await sources.infraEnvExists(defaultInfraEnv))
      return hit(defaultInfraEnv, 'default', `${ambiguity}unknown host: PXE_DEFAULT_INFRA_ENV`);
    return {
      matched: false,
      reason: `${ambiguity}unknown host, and PXE_DEFAULT_INFRA_ENV names InfraEnv ${defaultInfraEnv}, which does not exist`,
    };
  }
  return {
    matched: false,
    reason: `${ambiguity}unknown host: no assignment, BMC, mac_interface_map or registration names it, and PXE_DEFAULT_INFRA_ENV is not set`,
  };
}
