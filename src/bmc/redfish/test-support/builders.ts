// Test support: SlotInfo and SystemInfo values with defaults, for the planning tables.
// Does NOT: talk to anything. Imports only src/bmc/redfish.
import type { SlotInfo, SystemInfo } from '../resources.js';

export function slot(id: string, overrides: Partial<SlotInfo> = {}): SlotInfo {
  const path = `/redfish/v1/Managers/1/VirtualMedia/${id}`;
  return {
    path,
    id,
    name: undefined,
    mediaTypes: ['CD', 'DVD'],
    inserted: false,
    image: undefined,
    writeProtected: true,
    insertTarget: `${path}/Actions/VirtualMedia.InsertMedia`,
    ejectTarget: `${path}/Actions/VirtualMedia.EjectMedia`,
    allowPatch: false,
    etag: undefined,
    location: 'manager',
    ...overrides,
  };
}

export function system(overrides: Partial<SystemInfo> = {}, boot: Partial<SystemInfo['boot']> = {}): SystemInfo {
  return {
    path: '/redfish/v1/Systems/1',
    id: '1',
    name: undefined,
    manufacturer: undefined,
    model: undefined,
    serialNumber: undefined,
    uuid: undefined,
    powerState: 'On',
    boot: {
      enabled: 'Disabled',
      target: 'None',
      mode: 'UEFI',
      allowedTargets: ['None', 'Pxe', 'Cd', 'Hdd'],
      allowedModes: undefined,
      hasMode: true,
      hasHttpBootUri: false,
      ...boot,
    },
    resetTarget: '/redfish/v1/Systems/1/Actions/ComputerSystem.Reset',
    resetTypes: undefined,
    resetActionInfoRef: undefined,
    ethernetInterfacesRef: undefined,
    virtualMediaRef: undefined,
    biosRef: undefined,
    managedByRefs: [],
    etag: undefined,
    ...overrides,
  };
}
