// The role table (./wings.ts) against the wings' declarations (./wing.ts): which wings each role
// runs, that every port a wing needs is offered by a wing before it, that no port is offered
// twice, and which wing implements each image port in each mode.
import { describe, expect, it } from 'vitest';
import type { Role } from '../config.js';
import type { PortName } from './ports.js';
import type { WingModule } from './wing.js';
import { WINGS, type WingRow, wingsOf } from './wings.js';

/** Every role with the modes it can run in (`--role image` needs ASSISTED_SERVICE_URL: src/config.ts). */
const ROWS: Array<[Role, boolean]> = [
  ['all', false],
  ['all', true],
  ['core', false],
  ['core', true],
  ['image', true],
];

/** Walks the wings as the service assembles them: who implements each port, and what is wrong. */
function walk(wings: readonly WingModule[]): { providers: Map<PortName, string>; problems: string[] } {
  const providers = new Map<PortName, string>();
  const problems: string[] = [];
  for (const wing of wings) {
    for (const port of wing.needs.ports ?? [])
      if (!providers.has(port)) problems.push(`${wing.name} needs ${port}, offered by no wing before it`);
    for (const port of wing.offers.ports ?? []) {
      const before = providers.get(port);
      if (before !== undefined) problems.push(`${wing.name} offers ${port}, which ${before} offers`);
      providers.set(port, wing.name);
    }
    for (const port of wing.offers.swaps ?? []) providers.set(port, wing.name);
  }
  return { providers, problems };
}

const names = (wings: readonly WingModule[]) => wings.map((w) => w.name);

describe('the wings of each role (./wings.ts)', () => {
  it('runs these wings, in this order', () => {
    expect(
      Object.fromEntries(
        ROWS.map(([role, remote]) => [`${role}${remote ? ' remote' : ''}`, names(wingsOf(role, remote))]),
      ),
    ).toEqual({
      all: ['images', 'core', 'front door', 'bmc', 'pxe', 'console', 'image face'],
      'all remote': ['images', 'core', 'front door', 'bmc', 'pxe', 'console', 'remote image ports', 'image face'],
      core: ['images', 'core', 'front door', 'bmc', 'pxe', 'console'],
      'core remote': ['images', 'core', 'front door', 'bmc', 'pxe', 'console'],
      'image remote': ['images', 'remote image ports', 'remote token reads', 'image face'],
    });
  });

  it.each(ROWS)('%s (remote %s): every port needed is offered before, none twice', (role, remote) => {
    expect(walk(wingsOf(role, remote)).problems).toEqual([]);
  });

  it('names who implements the image ports: the in-process core, or the fronted one in remote mode', () => {
    const imagePorts = (role: Role, remote: boolean) => {
      const { providers } = walk(wingsOf(role, remote));
      const ports: PortName[] = ['ignitionSource', 'urlTokens', 'bootEvents', 'tokenReads'];
      return Object.fromEntries(ports.map((port) => [port, providers.get(port)]));
    };
    expect(imagePorts('all', false)).toEqual({
      ignitionSource: 'core',
      urlTokens: 'core',
      bootEvents: 'core',
      tokenReads: 'bmc',
    });
    // BMC jobs run here: their ISO reads stay with this process's BMC wing
    expect(imagePorts('all', true)).toEqual({
      ignitionSource: 'remote image ports',
      urlTokens: 'remote image ports',
      bootEvents: 'remote image ports',
      tokenReads: 'bmc',
    });
    expect(imagePorts('image', true)).toEqual({
      ignitionSource: 'remote image ports',
      urlTokens: 'remote image ports',
      bootEvents: 'remote image ports',
      tokenReads: 'remote token reads',
    });
  });

  it('says when a row is wrong: a wing before the wing whose port it needs, a port offered twice', () => {
    const byName = (name: string) => WINGS.find((row) => row.wing.name === name)!;
    const swapped: WingRow[] = [byName('images'), byName('bmc'), byName('core')];
    expect(walk(wingsOf('all', false, swapped)).problems).toEqual([
      'bmc needs adminGate, offered by no wing before it',
      'bmc needs coreDomain, offered by no wing before it',
    ]);
    const twice: WingRow[] = [...WINGS, { ...byName('remote token reads'), roles: ['all'] }];
    expect(walk(wingsOf('all', true, twice)).problems).toEqual([
      'remote token reads offers tokenReads, which bmc offers',
    ]);
  });

  it('takes a new wing as one module and one row', () => {
    const audit: WingModule = {
      name: 'audit',
      needs: { ports: ['coreDomain'] },
      offers: {},
      prepare: () => Promise.resolve(() => Promise.resolve({})),
    };
    const rows: WingRow[] = [...WINGS, { wing: audit, roles: ['all', 'core'], when: 'always' }];
    expect(names(wingsOf('core', false, rows)).at(-1)).toBe('audit');
    expect(names(wingsOf('image', true, rows))).not.toContain('audit');
    expect(walk(wingsOf('all', false, rows)).problems).toEqual([]);
  });
});
