// Walks a BMC's Redfish tree to what booting needs: service root → the System (the one the address
// names, or the only one listed) → its Managers → VirtualMedia collections (under the System, as
// iDRAC ≥ 6.00.02 lists them, and under each Manager) → slots; EthernetInterfaces → MACs; the
// Reset action's allowable values (inline, or from its ActionInfo as Supermicro and OpenBMC list
// them). Then detects the vendor profile (profiles.ts) unless one was given.
//
// Every link goes through the transport's origin check; a collection listing more than
// MAX_COLLECTION_MEMBERS fails the read (`too-large`, naming the bound) rather than being walked.
// Errors name the step (`discover`, or the caller's).
// Does NOT: change anything on the BMC. Next: client.ts caches the topology and acts on it.
import type { BmcAddress } from './address.js';
import { RedfishError } from './errors.js';
import { MAX_COLLECTION_MEMBERS, MAX_INVENTORY_BYTES } from './limits.js';
import { type Detection, detectProfile, PROFILES, type ProfileId, type VendorProfile } from './profiles.js';
import {
  type ManagerInfo,
  memberRefs,
  readActionInfoValues,
  readMac,
  readManager,
  readServiceRoot,
  readSlot,
  readSystem,
  type ServiceRootInfo,
  type SlotInfo,
  type SlotLocation,
  type SystemInfo,
} from './resources.js';
import type { RedfishTransport } from './transport.js';

export interface BmcTopology {
  address: BmcAddress;
  root: ServiceRootInfo;
  system: SystemInfo;
  managers: ManagerInfo[];
  /** VirtualMedia collections, System first when it has one. */
  mediaCollections: { location: SlotLocation; path: string }[];
  profile: VendorProfile;
  /** Why this profile: the detection's reason, or "given". */
  profileReason: string;
  profileOverridden: boolean;
}

export async function discoverTopology(
  t: RedfishTransport,
  address: BmcAddress,
  override: ProfileId | undefined,
  step = 'discover',
): Promise<BmcTopology> {
  const { doc: rootDoc } = await t.getResource(step, address.rootPath);
  const root = readServiceRoot(rootDoc);
  const systemPath = address.systemPath ?? (await onlySystem(t, root, step));
  const system = await readSystemAt(t, systemPath, step);

  const managerRefs =
    system.managedByRefs.length > 0
      ? system.managedByRefs
      : root.managersRef
        ? await readCollection(t, step, t.pathOf(step, root.managersRef))
        : [];
  const managers: ManagerInfo[] = [];
  for (const ref of managerRefs) {
    const path = t.pathOf(step, ref);
    managers.push(readManager(path, (await t.getResource(step, path)).doc));
  }

  const mediaCollections: BmcTopology['mediaCollections'] = [];
  if (system.virtualMediaRef)
    mediaCollections.push({ location: 'system', path: t.pathOf(step, system.virtualMediaRef) });
  for (const m of managers) {
    if (m.virtualMediaRef) mediaCollections.push({ location: 'manager', path: t.pathOf(step, m.virtualMediaRef) });
  }

  const detection: Detection = override
    ? { profile: PROFILES[override], reason: 'given' }
    : detectProfile({
        rootVendor: root.vendor,
        rootProduct: root.product,
        rootOemVendors: root.oemVendors,
        managerModel: managers[0]?.model,
        managerFirmware: managers[0]?.firmwareVersion,
        systemManufacturer: system.manufacturer,
      });
  return {
    address,
    root,
    system,
    managers,
    mediaCollections,
    profile: detection.profile,
    profileReason: detection.reason,
    profileOverridden: override !== undefined,
  };
}

async function onlySystem(t: RedfishTransport, root: ServiceRootInfo, step: string): Promise<string> {
  if (!root.systemsRef) {
    throw new RedfishError({ bmc: t.bmc, step, failure: 'malformed' }, 'the service root has no Systems link');
  }
  const systems = await readCollection(t, step, t.pathOf(step, root.systemsRef));
  if (systems.length === 0) {
    throw new RedfishError({ bmc: t.bmc, step, failure: 'unsupported' }, 'the BMC lists no Systems');
  }
  if (systems.length > 1) {
    throw new RedfishError(
      { bmc: t.bmc, step, failure: 'bad-input' },
      `the BMC lists ${systems.length} Systems (${systems.slice(0, 8).join(', ')}); give the System URL as the address`,
    );
  }
  return t.pathOf(step, systems[0] as string);
}

/** The member references of the collection at `path`; more than MAX_COLLECTION_MEMBERS fail the read. */
async function readCollection(t: RedfishTransport, step: string, path: string): Promise<string[]> {
  const refs = memberRefs((await t.getResource(step, path)).doc);
  if (refs.length > MAX_COLLECTION_MEMBERS) {
    throw new RedfishError(
      { bmc: t.bmc, step, failure: 'too-large', method: 'GET', path },
      `the collection lists ${refs.length} members, beyond MAX_COLLECTION_MEMBERS (${MAX_COLLECTION_MEMBERS})`,
    );
  }
  return refs;
}

/** The System as it is now, with the Reset allowable values filled in from the ActionInfo when not inline. */
export async function readSystemAt(t: RedfishTransport, path: string, step: string): Promise<SystemInfo> {
  const { doc, response } = await t.getResource(step, path);
  const system = readSystem(path, doc, response.etag);
  if (system.resetTypes === undefined && system.resetActionInfoRef) {
    const info = await t.getResource(step, t.pathOf(step, system.resetActionInfoRef));
    return { ...system, resetTypes: readActionInfoValues(info.doc, 'ResetType') };
  }
  return system;
}

/**
 * Every slot of every VirtualMedia collection, in collection order. The slots are part of the
 * inventory: once what they hold passes MAX_INVENTORY_BYTES the read fails, before the next one.
 */
export async function readSlots(t: RedfishTransport, topology: BmcTopology, step: string): Promise<SlotInfo[]> {
  const slots: SlotInfo[] = [];
  let bytes = 0;
  for (const collection of topology.mediaCollections) {
    const members = await readCollection(t, step, collection.path);
    for (const ref of members) {
      const path = t.pathOf(step, ref);
      const slot = await readSlotAt(t, path, collection.location, step);
      bytes += Buffer.byteLength(JSON.stringify(slot));
      if (bytes > MAX_INVENTORY_BYTES) {
        throw new RedfishError(
          { bmc: t.bmc, step, failure: 'too-large', method: 'GET', path },
          `the virtual media slots hold more than MAX_INVENTORY_BYTES (${MAX_INVENTORY_BYTES.toLocaleString('en-US')} bytes)`,
        );
      }
      slots.push(slot);
    }
  }
  return slots;
}

export async function readSlotAt(
  t: RedfishTransport,
  path: string,
  location: SlotLocation,
  step: string,
): Promise<SlotInfo> {
  const { doc, response } = await t.getResource(step, path);
  return readSlot(path, doc, response, location);
}

/** MACs of the System's EthernetInterfaces (lower case, deduplicated, in BMC order). */
export async function readMacs(t: RedfishTransport, system: SystemInfo, step: string): Promise<string[]> {
  if (!system.ethernetInterfacesRef) return [];
  const members = await readCollection(t, step, t.pathOf(step, system.ethernetInterfacesRef));
  const macs: string[] = [];
  for (const ref of members) {
    const mac = readMac((await t.getResource(step, t.pathOf(step, ref))).doc);
    if (mac && !macs.includes(mac)) macs.push(mac);
  }
  return macs;
}
