// How each emulated BMC behaves: one row per vendor profile, reproducing the quirks real BMCs are
// known for (the facts and their sources are in src/bmc/redfish/profiles.ts; this table is written
// independently so the client is tested against behaviour, not against its own assumptions).
//
//   generic          DMTF-shaped: Managers/1/VirtualMedia/{Floppy1,CD1}, actions, Basic and sessions
//   dell-idrac       iDRAC 9 (16G), firmware 7.x: VirtualMedia under the System only; slot 1 starts
//                    with a stale `Inserted: true` and an unreachable image; InsertMedia on an
//                    attached slot answers 500 (VRM0012); On while on answers 409
//   dell-idrac10     17G Manager: slot "2" accepts an insert but is not the boot device; slot "1" is
//                    (listed 2 before 1, as a BMC may)
//   hpe-ilo7         iLO 7: InsertMedia refuses http:// images (400); EjectMedia without a body → 415
//   supermicro       X12: InsertMedia with Inserted or WriteProtected → 400 ActionParameterNotSupported;
//                    boot override target Cd does not boot the virtual media, UsbCd does; Reset
//                    allowable values only through an ActionInfo resource
//   lenovo-xcc       no InsertMedia/EjectMedia actions, slots answer `Allow: GET, PATCH`; a PATCH without
//                    `Inserted: true` is accepted and silently attaches nothing
//   cisco            slot 0 answers 405 to InsertMedia, slot 1 answers 400 (vKVM only), slot 2
//                    (DVD-only) works
//   transfer-stream  InsertMedia needs TransferProtocolType and TransferMethod: Stream, else 400
//                    ActionParameterMissing naming the property (sushy's detection shape)
//   uefi-http        no virtual media at all; UefiHttp + Boot.HttpBootUri (NVIDIA/AMI-style)
//   hpe-ilo5         iLO 5: no HttpBootUri; the URL goes into the UrlBootFile BIOS attribute
//
// UEFI HTTP Boot (`httpBoot`): `boot-uri` shows Boot.HttpBootUri and takes it in the PATCH;
// `dell-bios` takes HttpDev1EnDis/HttpDev1Uri/HttpDev1TlsMode in Bios/Settings, applied at a reset
// only when a BIOS job (POST Managers/<id>/Jobs) was created, and refuses an http:// URI unless
// HttpDev1TlsMode is None (its default is OneWay); `hpe-bios` takes UrlBootFile in Bios/Settings,
// applied at the next reset. Dell's PATCH of HttpBootUri answers 400 (not a property it has).
//
// Does NOT: serve anything (server.ts, handler.ts do).

export type SlotBehaviour =
  /** Takes images; the guest's CD drive gets them when `bootable`. */
  | 'ok'
  /** InsertMedia answers 405 (Cisco C845A: no remote media on this slot). */
  | 'method-not-allowed'
  /** InsertMedia answers 400 (Cisco UCS: slot reserved for the vKVM). */
  | 'vkvm-only';

export interface EmulatedSlotSpec {
  id: string;
  name: string;
  mediaTypes: string[];
  behaviour: SlotBehaviour;
  /** Media inserted here reaches the guest's CD drive. */
  bootable: boolean;
}

export interface EmulatorProfile {
  id: string;
  /** Service root `Vendor` (omitted when undefined, as on pre-1.5 roots). */
  vendor: string | undefined;
  product: string;
  /** Service root `Oem` key. */
  oemKey: string | undefined;
  systemId: string;
  managerId: string;
  manufacturer: string;
  model: string;
  managerModel: string;
  firmwareVersion: string;
  /** Where the VirtualMedia collection hangs. */
  mediaUnder: 'system' | 'manager';
  slots: EmulatedSlotSpec[];
  insertVia: 'action' | 'patch';
  /** InsertMedia refuses Inserted/WriteProtected in its body. */
  rejectInsertFlags: boolean;
  /** InsertMedia requires TransferProtocolType and TransferMethod. */
  requireTransfer: boolean;
  httpsImagesOnly: boolean;
  /** InsertMedia on a slot that is Inserted answers 500. */
  refuseInsertWhenInserted: boolean;
  /** A PATCH that sets Image without `Inserted: true` attaches nothing. */
  patchNeedsInserted: boolean;
  /** EjectMedia without a JSON body answers 415. */
  ejectNeedsBody: boolean;
  /** An image in this slot at start: Inserted claimed, unreachable, never attached. */
  staleMedia: { slot: string; image: string } | undefined;
  bootTargets: string[];
  /** Boot override targets that boot the virtual media. */
  cdBootTargets: string[];
  bootModes: string[];
  resetTypes: string[];
  /** Reset allowable values only in an ActionInfo resource, not inline. */
  resetActionInfo: boolean;
  /** `On` while on answers 409 (iDRAC), instead of doing nothing. */
  onWhileOnConflicts: boolean;
  /** How an override to UefiHttp gets its URI (see the header); undefined: UefiHttp boots nothing. */
  httpBoot?: 'boot-uri' | 'dell-bios' | 'hpe-bios';
}

const RESET_TYPES = [
  'On',
  'ForceOff',
  'GracefulShutdown',
  'GracefulRestart',
  'ForceRestart',
  'Nmi',
  'PushPowerButton',
  'PowerCycle',
];

const GENERIC: EmulatorProfile = {
  id: 'generic',
  vendor: 'Contoso',
  product: 'Emulated BMC',
  oemKey: undefined,
  systemId: '1',
  managerId: '1',
  manufacturer: 'Contoso',
  model: 'Virtual Server 1',
  managerModel: 'Emulated Manager',
  firmwareVersion: '1.0.0',
  mediaUnder: 'manager',
  slots: [
    {
      id: 'Floppy1',
      name: 'Virtual Removable Media',
      mediaTypes: ['Floppy', 'USBStick'],
      behaviour: 'ok',
      bootable: false,
    },
    { id: 'CD1', name: 'Virtual CD', mediaTypes: ['CD', 'DVD'], behaviour: 'ok', bootable: true },
  ],
  insertVia: 'action',
  rejectInsertFlags: false,
  requireTransfer: false,
  httpsImagesOnly: false,
  refuseInsertWhenInserted: false,
  patchNeedsInserted: false,
  ejectNeedsBody: false,
  staleMedia: undefined,
  bootTargets: ['None', 'Pxe', 'Cd', 'Hdd', 'BiosSetup'],
  cdBootTargets: ['Cd'],
  bootModes: ['Legacy', 'UEFI'],
  resetTypes: RESET_TYPES,
  resetActionInfo: false,
  onWhileOnConflicts: false,
};

export const EMULATOR_PROFILES: Readonly<Record<string, EmulatorProfile>> = {
  generic: GENERIC,
  'dell-idrac': {
    ...GENERIC,
    id: 'dell-idrac',
    vendor: 'Dell',
    product: 'Integrated Dell Remote Access Controller',
    oemKey: 'Dell',
    systemId: 'System.Embedded.1',
    managerId: 'iDRAC.Embedded.1',
    manufacturer: 'Dell Inc.',
    model: 'PowerEdge R660',
    managerModel: '16G Monolithic',
    firmwareVersion: '7.10.30.00',
    mediaUnder: 'system',
    slots: [
      { id: '1', name: 'VirtualMedia', mediaTypes: ['CD', 'DVD', 'USBStick'], behaviour: 'ok', bootable: true },
      { id: '2', name: 'VirtualMedia', mediaTypes: ['CD', 'DVD', 'USBStick'], behaviour: 'ok', bootable: false },
    ],
    refuseInsertWhenInserted: true,
    staleMedia: { slot: '1', image: 'http://192.0.2.10/stale/previous-discovery.iso' },
    bootTargets: ['None', 'Pxe', 'Floppy', 'Cd', 'Hdd', 'BiosSetup', 'Utilities', 'UefiTarget', 'SDCard', 'UefiHttp'],
    onWhileOnConflicts: true,
    httpBoot: 'dell-bios',
    resetTypes: [
      'On',
      'ForceOff',
      'ForceRestart',
      'GracefulRestart',
      'GracefulShutdown',
      'PushPowerButton',
      'Nmi',
      'PowerCycle',
    ],
  },
  'dell-idrac10': {
    ...GENERIC,
    id: 'dell-idrac10',
    vendor: 'Dell',
    product: 'Integrated Dell Remote Access Controller',
    oemKey: 'Dell',
    systemId: 'System.Embedded.1',
    managerId: 'iDRAC.Embedded.1',
    manufacturer: 'Dell Inc.',
    model: 'PowerEdge R770',
    managerModel: '17G Monolithic',
    firmwareVersion: '1.20.25.00',
    mediaUnder: 'system',
    slots: [
      { id: '2', name: 'VirtualMedia', mediaTypes: ['CD', 'DVD', 'USBStick'], behaviour: 'ok', bootable: false },
      { id: '1', name: 'VirtualMedia', mediaTypes: ['CD', 'DVD', 'USBStick'], behaviour: 'ok', bootable: true },
    ],
    refuseInsertWhenInserted: true,
    onWhileOnConflicts: true,
  },
  'hpe-ilo7': {
    ...GENERIC,
    id: 'hpe-ilo7',
    vendor: 'HPE',
    product: 'ProLiant DL380 Gen12',
    oemKey: 'Hpe',
    manufacturer: 'HPE',
    model: 'ProLiant DL380 Gen12',
    managerModel: 'iLO 7',
    firmwareVersion: 'iLO 7 v1.12.00',
    slots: [
      { id: '1', name: 'VirtualMedia', mediaTypes: ['Floppy', 'USBStick'], behaviour: 'ok', bootable: false },
      { id: '2', name: 'VirtualMedia', mediaTypes: ['CD', 'DVD'], behaviour: 'ok', bootable: true },
    ],
    httpsImagesOnly: true,
    ejectNeedsBody: true,
    httpBoot: 'boot-uri',
    bootTargets: [
      'None',
      'Cd',
      'Hdd',
      'Usb',
      'SDCard',
      'Utilities',
      'Diags',
      'BiosSetup',
      'Pxe',
      'UefiShell',
      'UefiHttp',
      'UefiTarget',
    ],
    resetTypes: ['On', 'ForceOff', 'GracefulShutdown', 'ForceRestart', 'Nmi', 'PushPowerButton', 'GracefulRestart'],
  },
  supermicro: {
    ...GENERIC,
    id: 'supermicro',
    vendor: 'Supermicro',
    product: 'Supermicro Redfish Service',
    oemKey: 'Supermicro',
    manufacturer: 'Supermicro',
    model: 'SYS-221H-TNR',
    managerModel: 'X12DPG-QT6',
    firmwareVersion: '01.01.06',
    slots: [
      { id: 'CD1', name: 'Virtual Removable Media', mediaTypes: ['CD', 'DVD'], behaviour: 'ok', bootable: true },
      { id: 'USB1', name: 'Virtual Removable Media', mediaTypes: ['USBStick'], behaviour: 'ok', bootable: false },
    ],
    rejectInsertFlags: true,
    bootTargets: [
      'None',
      'Pxe',
      'Hdd',
      'Diags',
      'Cd',
      'BiosSetup',
      'FloppyRemovableMedia',
      'UsbKey',
      'UsbHdd',
      'UsbFloppy',
      'UsbCd',
      'UefiUsbKey',
      'UefiCd',
      'UefiHdd',
      'UefiUsbHdd',
      'UefiUsbCd',
      'UefiHttp',
    ],
    cdBootTargets: ['UsbCd', 'UefiUsbCd'],
    httpBoot: 'boot-uri',
    resetActionInfo: true,
    resetTypes: ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart', 'Nmi', 'ForceOn'],
  },
  'lenovo-xcc': {
    ...GENERIC,
    id: 'lenovo-xcc',
    vendor: 'Lenovo',
    product: 'Lenovo XClarity Controller',
    oemKey: 'Lenovo',
    manufacturer: 'Lenovo',
    model: 'ThinkSystem SR650 V3',
    managerModel: 'Lenovo XClarity Controller',
    firmwareVersion: 'ESX3A8G 4.10',
    slots: [
      { id: 'EXT1', name: 'EXT1', mediaTypes: ['CD', 'DVD'], behaviour: 'ok', bootable: true },
      { id: 'EXT2', name: 'EXT2', mediaTypes: ['USBStick'], behaviour: 'ok', bootable: false },
    ],
    insertVia: 'patch',
    patchNeedsInserted: true,
  },
  cisco: {
    ...GENERIC,
    id: 'cisco',
    vendor: 'Cisco Systems Inc.',
    product: 'UCS C-Series Standalone CIMC',
    oemKey: 'Cisco',
    systemId: 'WZP2410ABCD',
    managerId: 'CIMC',
    manufacturer: 'Cisco Systems Inc',
    model: 'UCSC-C220-M7S',
    managerModel: 'UCSC-C220-M7S',
    firmwareVersion: '4.3(2.230207)',
    slots: [
      { id: '0', name: 'KVM mapped vDVD', mediaTypes: ['CD', 'DVD'], behaviour: 'method-not-allowed', bootable: false },
      { id: '1', name: 'vKVM vDVD', mediaTypes: ['CD', 'DVD'], behaviour: 'vkvm-only', bootable: false },
      { id: '2', name: 'CIMC-Mapped vDVD', mediaTypes: ['DVD'], behaviour: 'ok', bootable: true },
      { id: '3', name: 'CIMC-Mapped vHDD', mediaTypes: ['USBStick'], behaviour: 'ok', bootable: false },
    ],
  },
  'transfer-stream': {
    ...GENERIC,
    id: 'transfer-stream',
    requireTransfer: true,
  },
  'uefi-http': {
    ...GENERIC,
    id: 'uefi-http',
    product: 'Emulated BMC (UEFI HTTP Boot only)',
    slots: [],
    bootTargets: ['None', 'Pxe', 'Hdd', 'UefiHttp', 'BiosSetup'],
    cdBootTargets: [],
    httpBoot: 'boot-uri',
  },
  'hpe-ilo5': {
    ...GENERIC,
    id: 'hpe-ilo5',
    vendor: 'HPE',
    product: 'ProLiant DL360 Gen10',
    oemKey: 'Hpe',
    manufacturer: 'HPE',
    model: 'ProLiant DL360 Gen10',
    managerModel: 'iLO 5',
    firmwareVersion: 'iLO 5 v3.08',
    slots: [
      { id: '1', name: 'VirtualMedia', mediaTypes: ['Floppy', 'USBStick'], behaviour: 'ok', bootable: false },
      { id: '2', name: 'VirtualMedia', mediaTypes: ['CD', 'DVD'], behaviour: 'ok', bootable: true },
    ],
    ejectNeedsBody: true,
    bootTargets: ['None', 'Cd', 'Hdd', 'Usb', 'Utilities', 'BiosSetup', 'Pxe', 'UefiShell', 'UefiHttp', 'UefiTarget'],
    httpBoot: 'hpe-bios',
  },
};

export function emulatorProfile(id: string): EmulatorProfile {
  const profile = EMULATOR_PROFILES[id];
  if (!profile)
    throw new Error(`unknown emulator profile ${JSON.stringify(id)} (${Object.keys(EMULATOR_PROFILES).join(', ')})`);
  return profile;
}
