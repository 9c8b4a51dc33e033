// The Redfish documents we read, as small typed views: service root, ComputerSystem, Manager,
// VirtualMedia slot, EthernetInterface, ActionInfo. Pure and tolerant — a missing or mistyped
// property becomes `undefined`, never a throw — because BMC firmware varies in what it fills in.
//
// Does: pick the properties discovery and planning need, with the spellings BMCs use
// (`@Redfish.AllowableValues`, `@Redfish.ActionInfo`, `@odata.etag`, `Oem` vendor keys).
// Does NOT: follow links (discovery.ts does, through the transport's origin check).
// Next: discovery.ts assembles these into a BmcTopology.
import { MAX_COLLECTION_MEMBERS } from './limits.js';

export type Doc = Record<string, unknown>;

export interface ServiceRootInfo {
  vendor: string | undefined;
  product: string | undefined;
  redfishVersion: string | undefined;
  uuid: string | undefined;
  /** Keys of the root's `Oem` object (`Dell`, `Hpe`, `Supermicro`, …). */
  oemVendors: string[];
  systemsRef: string | undefined;
  managersRef: string | undefined;
}

export interface BootInfo {
  enabled: string | undefined;
  target: string | undefined;
  mode: string | undefined;
  /** `BootSourceOverrideTarget@Redfish.AllowableValues`; undefined when not listed. */
  allowedTargets: string[] | undefined;
  /** `BootSourceOverrideMode@Redfish.AllowableValues`; undefined when not listed. */
  allowedModes: string[] | undefined;
  /** The System shows `BootSourceOverrideMode` at all (some BMCs refuse it when they do not). */
  hasMode: boolean;
  /** The System shows `HttpBootUri` (ComputerSystem v1.9+: the URI a `UefiHttp` boot reads). */
  hasHttpBootUri: boolean;
}

export interface SystemInfo {
  path: string;
  id: string | undefined;
  name: string | undefined;
  manufacturer: string | undefined;
  model: string | undefined;
  serialNumber: string | undefined;
  uuid: string | undefined;
  powerState: string | undefined;
  boot: BootInfo;
  resetTarget: string | undefined;
  /** `ResetType@Redfish.AllowableValues` (or from the action's ActionInfo); undefined when not listed. */
  resetTypes: string[] | undefined;
  resetActionInfoRef: string | undefined;
  ethernetInterfacesRef: string | undefined;
  virtualMediaRef: string | undefined;
  /** The System's `Bios` resource (vendor HTTP boot attributes live there). */
  biosRef: string | undefined;
  managedByRefs: string[];
  etag: string | undefined;
}

export interface ManagerInfo {
  path: string;
  id: string | undefined;
  model: string | undefined;
  firmwareVersion: string | undefined;
  virtualMediaRef: string | undefined;
}

export type SlotLocation = 'system' | 'manager';

export interface SlotInfo {
  path: string;
  id: string;
  name: string | undefined;
  /** `MediaTypes` as given (`CD`, `DVD`, `USBStick`, `Floppy`); empty when not listed. */
  mediaTypes: string[];
  inserted: boolean | undefined;
  /** The image URL; undefined when empty or null. */
  image: string | undefined;
  writeProtected: boolean | undefined;
  insertTarget: string | undefined;
  ejectTarget: string | undefined;
  /** The GET's Allow header lists PATCH. */
  allowPatch: boolean;
  etag: string | undefined;
  location: SlotLocation;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export function record(v: unknown): Doc | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Doc) : undefined;
}

/** `{"@odata.id": "…"}` → the reference. */
export function ref(v: unknown): string | undefined {
  return str(record(v)?.['@odata.id']);
}

function strings(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.map(str).filter((s): s is string => s !== undefined);
}

/** References of a collection's `Members` (discovery.ts refuses more than MAX_COLLECTION_MEMBERS). */
export function memberRefs(collection: Doc): string[] {
  const members = Array.isArray(collection.Members) ? collection.Members : [];
  return members.map(ref).filter((r): r is string => r !== undefined);
}

export function readServiceRoot(doc: Doc): ServiceRootInfo {
  return {
    vendor: str(doc.Vendor),
    product: str(doc.Product),
    redfishVersion: str(doc.RedfishVersion),
    uuid: str(doc.UUID),
    oemVendors: Object.keys(record(doc.Oem) ?? {}),
    systemsRef: ref(doc.Systems),
    managersRef: ref(doc.Managers),
  };
}

export function readSystem(path: string, doc: Doc, etag: string | undefined): SystemInfo {
  const boot = record(doc.Boot) ?? {};
  const reset = record(record(doc.Actions)?.['#ComputerSystem.Reset']);
  const links = record(doc.Links) ?? {};
  return {
    path,
    id: str(doc.Id),
    name: str(doc.Name),
    manufacturer: str(doc.Manufacturer),
    model: str(doc.Model),
    serialNumber: str(doc.SerialNumber),
    uuid: str(doc.UUID),
    powerState: str(doc.PowerState),
    boot: {
      enabled: str(boot.BootSourceOverrideEnabled),
      target: str(boot.BootSourceOverrideTarget),
      mode: str(boot.BootSourceOverrideMode),
      allowedTargets: strings(boot['BootSourceOverrideTarget@Redfish.AllowableValues']),
      allowedModes: strings(boot['BootSourceOverrideMode@Redfish.AllowableValues']),
      hasMode: 'BootSourceOverrideMode' in boot,
      hasHttpBootUri: 'HttpBootUri' in boot,
    },
    resetTarget: str(reset?.target),
    resetTypes: strings(reset?.['ResetType@Redfish.AllowableValues']),
    resetActionInfoRef: str(reset?.['@Redfish.ActionInfo']),
    ethernetInterfacesRef: ref(doc.EthernetInterfaces),
    virtualMediaRef: ref(doc.VirtualMedia),
    biosRef: ref(doc.Bios),
    managedByRefs: (Array.isArray(links.ManagedBy) ? links.ManagedBy : [])
      .map(ref)
      .filter((r): r is string => r !== undefined)
      .slice(0, MAX_COLLECTION_MEMBERS),
    etag: etag ?? str(doc['@odata.etag']),
  };
}

/** A System's Bios resource: its current attributes and where pending ones are written. */
export interface BiosInfo {
  path: string;
  /** `Attributes` (strings, numbers, booleans as given). */
  attributes: Record<string, unknown>;
  /** `@Redfish.Settings.SettingsObject` (the pending-settings resource); undefined when not shown. */
  settingsRef: string | undefined;
}

export function readBios(path: string, doc: Doc): BiosInfo {
  return {
    path,
    attributes: record(doc.Attributes) ?? {},
    settingsRef: ref(record(doc['@Redfish.Settings'])?.SettingsObject),
  };
}

/** AllowableValues of `parameter` in an ActionInfo document. */
export function readActionInfoValues(doc: Doc, parameter: string): string[] | undefined {
  const parameters = Array.isArray(doc.Parameters) ? doc.Parameters : [];
  for (const p of parameters) {
    const r = record(p);
    if (r && str(r.Name) === parameter) return strings(r.AllowableValues);
  }
  return undefined;
}

export function readManager(path: string, doc: Doc): ManagerInfo {
  return {
    path,
    id: str(doc.Id),
    model: str(doc.Model),
    firmwareVersion: str(doc.FirmwareVersion),
    virtualMediaRef: ref(doc.VirtualMedia),
  };
}

export function readSlot(
  path: string,
  doc: Doc,
  response: { etag: string | undefined; allow: string[] },
  location: SlotLocation,
): SlotInfo {
  const actions = record(doc.Actions) ?? {};
  return {
    path,
    id: str(doc.Id) ?? path.split('/').filter(Boolean).pop() ?? path,
    name: str(doc.Name),
    mediaTypes: strings(doc.MediaTypes) ?? [],
    inserted: typeof doc.Inserted === 'boolean' ? doc.Inserted : undefined,
    image: str(doc.Image),
    writeProtected: typeof doc.WriteProtected === 'boolean' ? doc.WriteProtected : undefined,
    insertTarget: str(record(actions['#VirtualMedia.InsertMedia'])?.target),
    ejectTarget: str(record(actions['#VirtualMedia.EjectMedia'])?.target),
    allowPatch: response.allow.includes('PATCH'),
    etag: response.etag ?? str(doc['@odata.etag']),
    location,
  };
}

const MAC = /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i;

/** The interface's MAC in lower-case colon form, or undefined when it has none that looks like one. */
export function readMac(doc: Doc): string | undefined {
  for (const candidate of [doc.MACAddress, doc.PermanentMACAddress]) {
    const s = str(candidate);
    if (s && MAC.test(s) && !/^(00[:-]){5}00$/.test(s)) return s.toLowerCase().replaceAll('-', ':');
  }
  return undefined;
}
