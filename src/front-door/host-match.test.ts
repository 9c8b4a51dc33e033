// The matcher's order and its words: assignment, BMC, mac_interface_map, registration, default,
// each winning over the ones after it; ambiguities said, never guessed; a missing default said.
import { describe, expect, it } from 'vitest';
import { type MatchSources, matchHost } from './host-match.js';

const MAC = '52:54:00:12:34:56';
const UUID = '00112233-4455-6677-8899-aabbccddeeff';
const SWAPPED = '33221100-5544-7766-8899-aabbccddeeff';
const [A, B, C, D, DEF] = ['a', 'b', 'c', 'd', 'def'].map((x) => `${x.padEnd(8, '0')}-0000-4000-8000-000000000000`) as [
  string,
  string,
  string,
  string,
  string,
];

/** Sources that know what `known` says, recording what they were asked. */
function sources(known: {
  assignment?: string;
  bmc?: string;
  maps?: string[];
  registrations?: { infraEnvId: string; hostId: string; by: 'mac' | 'system-uuid' }[];
  existing?: string[];
}): MatchSources & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    assignment: (mac, uuids) => {
      asked.push(`assignment ${mac} ${uuids.join(',')}`);
      return Promise.resolve(
        known.assignment
          ? { infraEnvId: known.assignment, key: { kind: 'mac', value: MAC }, secureBoot: true }
          : undefined,
      );
    },
    bmc: (mac) => {
      asked.push(`bmc ${mac}`);
      return Promise.resolve(known.bmc ? { infraEnvId: known.bmc, bmcName: 'rack1-07', by: 'mac' } : undefined);
    },
    staticNetwork: (mac) => {
      asked.push(`static ${mac}`);
      return Promise.resolve(known.maps ?? []);
    },
    registrations: () => {
      asked.push('registrations');
      return Promise.resolve(known.registrations ?? []);
    },
    infraEnvExists: (id) => Promise.resolve((known.existing ?? []).includes(id)),
  };
}

describe('matchHost', () => {
  it('takes an assignment first, with its Secure Boot choice, and asks nothing else', async () => {
    const s = sources({ assignment: A, bmc: B, maps: [C], registrations: [{ infraEnvId: D, hostId: 'h', by: 'mac' }] });
    expect(await matchHost({ mac: MAC, uuid: UUID }, s, DEF)).toEqual({
      matched: true,
      infraEnvId: A,
      via: 'assignment',
      why: `assigned by MAC ${MAC}`,
      secureBoot: true,
    });
    expect(s.asked).toEqual([`assignment ${MAC} ${UUID},${SWAPPED}`]);
  });

  it('then the BMC wing, then the mac_interface_map, then the newest registration, then the default', async () => {
    expect(await matchHost({ mac: MAC, uuid: undefined }, sources({ bmc: B, maps: [C] }), DEF)).toMatchObject({
      infraEnvId: B,
      via: 'bmc',
      why: `its BMC rack1-07 reported its MAC ${MAC}`,
      secureBoot: false,
    });
    expect(await matchHost({ mac: MAC, uuid: undefined }, sources({ maps: [C] }), DEF)).toMatchObject({
      infraEnvId: C,
      via: 'static-network',
    });
    const regs = [
      { infraEnvId: D, hostId: 'newest', by: 'system-uuid' as const },
      { infraEnvId: A, hostId: 'older', by: 'mac' as const },
    ];
    expect(await matchHost({ mac: MAC, uuid: UUID }, sources({ registrations: regs }), DEF)).toEqual({
      matched: true,
      infraEnvId: D,
      via: 'registration',
      why: 'host newest registered with its System UUID (the newest of 2 registrations in more than one InfraEnv)',
      hostId: 'newest',
      secureBoot: false,
    });
    expect(await matchHost({ mac: MAC, uuid: undefined }, sources({ existing: [DEF] }), DEF)).toMatchObject({
      infraEnvId: DEF,
      via: 'default',
    });
  });

  it('does not guess between two mac_interface_maps: says so, and falls through', async () => {
    const both = sources({ maps: [B, C], existing: [DEF] });
    const m = await matchHost({ mac: MAC, uuid: undefined }, both, DEF);
    expect(m).toMatchObject({ infraEnvId: DEF, via: 'default' });
    expect(m.matched && m.why).toMatch(`MAC ${MAC} is in the mac_interface_map of 2 InfraEnvs (${B}, ${C})`);
    const none = await matchHost({ mac: MAC, uuid: undefined }, sources({ maps: [B, C] }), undefined);
    expect(none).toEqual({
      matched: false,
      reason: expect.stringMatching(/of 2 InfraEnvs .*assign it to one\. unknown host: no assignment/),
    });
  });

  it('says why when nothing matches, or the default InfraEnv is gone', async () => {
    expect(await matchHost({ mac: MAC, uuid: undefined }, sources({}), undefined)).toEqual({
      matched: false,
      reason:
        'unknown host: no assignment, BMC, mac_interface_map or registration names it, and PXE_DEFAULT_INFRA_ENV is not set',
    });
    expect(await matchHost({ mac: MAC, uuid: undefined }, sources({}), DEF)).toEqual({
      matched: false,
      reason: `unknown host, and PXE_DEFAULT_INFRA_ENV names InfraEnv ${DEF}, which does not exist`,
    });
  });

  it('matches a host that sent only its UUID (no static-network lookup without a MAC)', async () => {
    const s = sources({ registrations: [{ infraEnvId: D, hostId: UUID, by: 'system-uuid' }] });
    expect(await matchHost({ mac: undefined, uuid: UUID }, s, undefined)).toMatchObject({ infraEnvId: D });
    expect(s.asked).toEqual([`assignment undefined ${UUID},${SWAPPED}`, 'bmc undefined', 'registrations']);
  });
});
