// Reading Redfish documents into what the client needs, as a table: a System with its boot and
// reset capabilities, a slot with its actions and Allow header, MACs (zeros and junk refused), a
// collection's references (discovery.ts bounds their number), values of the wrong type read as absent.
import { describe, expect, it } from 'vitest';
import { memberRefs, readActionInfoValues, readMac, readServiceRoot, readSlot, readSystem } from './resources.js';

describe('Redfish documents', () => {
  it('reads a System, ignoring values of the wrong type', () => {
    const system = readSystem(
      '/redfish/v1/Systems/1',
      {
        Id: '1',
        Model: 42,
        SerialNumber: 'SN1',
        UUID: 'c0ffee00-0000-4000-8000-000000000001',
        PowerState: 'On',
        Boot: {
          BootSourceOverrideEnabled: 'Disabled',
          'BootSourceOverrideTarget@Redfish.AllowableValues': ['Pxe', 'Cd', 7],
        },
        Actions: {
          '#ComputerSystem.Reset': { target: '/r', 'ResetType@Redfish.AllowableValues': ['On', 'ForceRestart'] },
        },
        EthernetInterfaces: { '@odata.id': '/e' },
        '@odata.etag': 'W/"3"',
      },
      undefined,
    );
    expect(system).toMatchObject({
      id: '1',
      model: undefined,
      serialNumber: 'SN1',
      powerState: 'On',
      boot: { enabled: 'Disabled', hasMode: false },
      resetTarget: '/r',
      resetTypes: ['On', 'ForceRestart'],
      ethernetInterfacesRef: '/e',
      etag: 'W/"3"',
    });
    expect(system.boot.allowedTargets).toEqual(['Pxe', 'Cd']);
  });

  it('reads a slot with its actions and whether PATCH is allowed', () => {
    const slot = readSlot(
      '/redfish/v1/Managers/1/VirtualMedia/CD1',
      {
        MediaTypes: ['CD', 'DVD'],
        Inserted: true,
        Image: 'http://x/a.iso',
        Actions: { '#VirtualMedia.EjectMedia': { target: '/ej' } },
      },
      { etag: undefined, allow: ['GET', 'PATCH'] },
      'manager',
    );
    expect(slot).toMatchObject({
      id: 'CD1',
      inserted: true,
      image: 'http://x/a.iso',
      ejectTarget: '/ej',
      insertTarget: undefined,
      allowPatch: true,
    });
  });

  it.each([
    [{ MACAddress: '52:54:00:AA:BB:01' }, '52:54:00:aa:bb:01'],
    [{ MACAddress: '52-54-00-aa-bb-02' }, '52:54:00:aa:bb:02'],
    [{ MACAddress: '00:00:00:00:00:00', PermanentMACAddress: '52:54:00:aa:bb:03' }, '52:54:00:aa:bb:03'],
    [{ MACAddress: 'not a mac' }, undefined],
    [{}, undefined],
  ])('MAC of %j', (doc, mac) => expect(readMac(doc)).toBe(mac));

  it("reads a collection's references, and the service root and ActionInfo values", () => {
    const members = Array.from({ length: 70 }, (_v, i) => ({ '@odata.id': `/m/${i}` }));
    expect(memberRefs({ Members: [...members, 'junk', { '@odata.id': 7 }] })).toEqual(
      members.map((m) => m['@odata.id']),
    );
    expect(readServiceRoot({ Vendor: 'Dell', Systems: { '@odata.id': '/s' }, Oem: { Dell: {} } })).toMatchObject({
      vendor: 'Dell',
      systemsRef: '/s',
      oemVendors: ['Dell'],
    });
    expect(readActionInfoValues({ Parameters: [{ Name: 'ResetType', AllowableValues: ['On'] }] }, 'ResetType')).toEqual(
      ['On'],
    );
    expect(readActionInfoValues({}, 'ResetType')).toBeUndefined();
  });
});
