// What a job's step tells about the BMC, applied to the stored inventory, so that `bmc show` says
// what the BMC says while a job runs (power On once the boot's power step ran, the job's ISO in
// its slot after the insert) instead of what the last full read saw. Pure; tested as a table
// (observed-state.test.ts).
//
//   read-power                   the power state read
//   eject, eject-media           the slots ejected: empty
//   insert                       the slot: inserted, with the URL as the step shows it (redacted)
//   boot-override                override Once, its target and mode
//   power (boot, power-on|reset) On;  power (power-off) Off
// A step without an outcome to apply (discover stores the whole inventory itself) changes nothing.
// Does NOT: read or write the database (./job-runner.ts does, under the BMC row's lock).
import type { BmcInventory } from '../redfish/index.js';
import type { JobAction } from '../store/records.js';

export type Observation =
  | { kind: 'power'; state: string }
  | { kind: 'ejected'; slots: string[] }
  | { kind: 'inserted'; slot: string; image: string | undefined }
  | { kind: 'boot-override'; target: string; mode: string | undefined };

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** What a step that ended done, with its data, observed of the BMC. */
export function observationsOf(
  action: JobAction,
  step: string,
  data: Record<string, unknown> | undefined,
): Observation[] {
  const d = data ?? {};
  switch (step) {
    case 'read-power': {
      const state = text(d.powerState);
      return state ? [{ kind: 'power', state }] : [];
    }
    case 'eject':
    case 'eject-media': {
      const slots = strings(d.ejected);
      return slots.length > 0 ? [{ kind: 'ejected', slots }] : [];
    }
    case 'insert': {
      const slot = text(d.slot);
      return slot ? [{ kind: 'inserted', slot, image: text(d.url) }] : [];
    }
    case 'boot-override': {
      const target = text(d.target);
      return target ? [{ kind: 'boot-override', target, mode: text(d.mode) }] : [];
    }
    case 'power':
      return [{ kind: 'power', state: action === 'power-off' ? 'Off' : 'On' }];
    default:
      return [];
  }
}

/** The inventory with the observations applied; unchanged (the same object) when there are none. */
export function applyObservations(inventory: BmcInventory, observations: readonly Observation[]): BmcInventory {
  if (observations.length === 0) return inventory;
  let next: BmcInventory = { ...inventory, system: { ...inventory.system }, boot: { ...inventory.boot } };
  for (const o of observations) {
    switch (o.kind) {
      case 'power':
        next.system.powerState = o.state;
        break;
      case 'ejected':
        next = {
          ...next,
          virtualMedia: next.virtualMedia.map((s) =>
            o.slots.includes(s.id) ? { ...s, inserted: false, image: undefined } : s,
          ),
        };
        break;
      case 'inserted':
        next = {
          ...next,
          virtualMedia: next.virtualMedia.map((s) => (s.id === o.slot ? { ...s, inserted: true, image: o.image } : s)),
        };
        break;
      case 'boot-override':
        next.boot = { ...next.boot, enabled: 'Once', target: o.target, mode: o.mode ?? next.boot.mode };
        break;
    }
  }
  return next;
}
