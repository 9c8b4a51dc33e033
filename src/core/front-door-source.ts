// What the PXE front door (src/front-door/) may ask of the core, answered from the core's tables
// through its repository: an InfraEnv's name and architecture, its iPXE script (the downloads
// route's renderer, boot-order-control included) and boot files, the hosts that registered with
// a MAC or System UUID, the InfraEnvs whose mac_interface_map names a MAC, and boot events.
// src/front-door/core-port.ts declares what the wing needs; src/assembly/core-wing.ts offers
// this and the compiler checks there that it fits.
// Does NOT: match a host to an InfraEnv (the front door does), authorize, or rate-limit events.
import { ConflictError, NotFoundError } from '../errors.js';
import type { CoreContext } from './context.js';
import { parseInventory } from './host/validations.js';
import {
  type InfraEnvBootFiles,
  type IpxeScriptType,
  infraEnvBootFiles,
  infraEnvIpxeScript,
} from './infraenv/infra-env-boot.js';

/** Registrations the front door looks at per question: the newest decides; more are a sign of a reused MAC. */
const MAX_IDENTITY_ROWS = 16;

export type FrontDoorScript = { kind: 'script'; script: string } | { kind: 'skip'; reason: string };

export interface FrontDoorEvent {
  infraEnvId: string | null;
  hostId: string | null;
  name: string;
  severity: 'info' | 'warning';
  message: string;
}

export interface Registration {
  infraEnvId: string;
  hostId: string;
  by: 'mac' | 'system-uuid';
}

export interface CoreFrontDoorSource {
  infraEnv(id: string): Promise<{ id: string; name: string; cpuArchitecture: string } | undefined>;
  ipxeScript(infraEnvId: string, type: IpxeScriptType, mac: string | undefined): Promise<FrontDoorScript | undefined>;
  bootFiles(infraEnvId: string): Promise<InfraEnvBootFiles | undefined>;
  registrations(mac: string | undefined, uuids: readonly string[]): Promise<Registration[]>;
  staticNetworkInfraEnvs(mac: string): Promise<string[]>;
  recordEvent(event: FrontDoorEvent): Promise<void>;
}

export function coreFrontDoorSource(ctx: CoreContext): CoreFrontDoorSource {
  const { repo } = ctx;
  return {
    async infraEnv(id) {
      const rec = await repo.getInfraEnv(id);
      return rec && { id: rec.id, name: rec.name, cpuArchitecture: rec.cpuArchitecture };
    },
    async ipxeScript(infraEnvId, type, mac) {
      const rec = await repo.getInfraEnv(infraEnvId);
      if (!rec) return undefined;
      try {
        return { kind: 'script', script: await infraEnvIpxeScript(ctx, rec, type, mac) };
      } catch (err) {
        if (err instanceof NotFoundError || err instanceof ConflictError) return { kind: 'skip', reason: err.message };
        throw err;
      }
    },
    async bootFiles(infraEnvId) {
      const rec = await repo.getInfraEnv(infraEnvId);
      return rec && infraEnvBootFiles(ctx, rec);
    },
    async registrations(mac, uuids) {
      const rows = await repo.hostsByIdentity(mac, uuids, MAX_IDENTITY_ROWS);
      return rows.flatMap((row): Registration[] => {
        if (uuids.includes(row.id.toLowerCase()))
          return [{ infraEnvId: row.infraEnvId, hostId: row.id, by: 'system-uuid' }];
        // the text search found the MAC somewhere in the inventory: only an interface's counts
        const interfaces = parseInventory(row.inventory)?.interfaces ?? [];
        const onInterface = interfaces.some((i) => (i.mac_address ?? '').toLowerCase().replaceAll('-', ':') === mac);
        return onInterface ? [{ infraEnvId: row.infraEnvId, hostId: row.id, by: 'mac' }] : [];
      });
    },
    staticNetworkInfraEnvs: (mac) => repo.infraEnvsWithStaticMac(mac, MAX_IDENTITY_ROWS),
    recordEvent: (event) => repo.insertEvent({ ...event, clusterId: null, eventTime: ctx.now() }),
  };
}
