// Which virtual media slots to try for a boot image, in which order, and which to leave alone.
//
// A slot is a candidate when it can hold a CD image: MediaTypes lists CD (first) or DVD (next;
// Cisco UCS blades have DVD-only slots that take CD images), or lists nothing at all (last: the
// BMC did not say, the InsertMedia answer will). Floppy/USBStick-only slots are skipped. The
// profile may restrict slot Ids (iDRAC 10: slot 1) and says whether the System's or the Manager's
// collection comes first. A candidate also needs a way in: the InsertMedia action, or PATCH (the
// profile's method, or the GET's Allow header). No candidate left is an `unsupported` error
// saying why each slot was skipped.
// Does NOT: call the BMC. Next: insert-payload.ts builds the request for each candidate.
import { RedfishError } from './errors.js';
import type { VendorProfile } from './profiles.js';
import type { SlotInfo } from './resources.js';

export interface SlotChoice {
  slot: SlotInfo;
  method: 'action' | 'patch';
}

export interface SlotPlan {
  candidates: SlotChoice[];
  skipped: { slot: string; why: string }[];
}

function mediaRank(slot: SlotInfo): number | undefined {
  const types = slot.mediaTypes.map((t) => t.toUpperCase());
  if (types.length === 0) return 2;
  if (types.includes('CD')) return 0;
  if (types.includes('DVD')) return 1;
  return undefined;
}

/** The way media gets into `slot` under `profile`, or why there is none. */
export function insertMethodFor(profile: VendorProfile, slot: SlotInfo): 'action' | 'patch' | string {
  if (profile.insertMethod === 'patch') return 'patch';
  if (slot.insertTarget) return 'action';
  if (slot.allowPatch) return 'patch';
  return 'it has no InsertMedia action and does not allow PATCH';
}

export function planSlots(bmc: string, profile: VendorProfile, slots: readonly SlotInfo[]): SlotPlan {
  const skipped: SlotPlan['skipped'] = [];
  const ranked: { choice: SlotChoice; rank: number; order: number }[] = [];
  slots.forEach((slot, order) => {
    const rank = mediaRank(slot);
    if (rank === undefined) {
      skipped.push({ slot: slot.id, why: `MediaTypes ${slot.mediaTypes.join('/')} has no CD or DVD` });
      return;
    }
    if (profile.slotIds && !profile.slotIds.includes(slot.id)) {
      skipped.push({
        slot: slot.id,
        why: `the ${profile.label} profile boots only from slot ${profile.slotIds.join(' or ')}`,
      });
      return;
    }
    const method = insertMethodFor(profile, slot);
    if (method !== 'action' && method !== 'patch') {
      skipped.push({ slot: slot.id, why: method });
      return;
    }
    const locationRank = slot.location === profile.mediaUnder ? 0 : 1;
    ranked.push({ choice: { slot, method }, rank: locationRank * 10 + rank, order });
  });
  ranked.sort((a, b) => a.rank - b.rank || a.order - b.order);
  const candidates = ranked.map((r) => r.choice);
  if (candidates.length === 0) {
    const why =
      slots.length === 0
        ? 'the BMC lists no virtual media slots'
        : `no slot can take a CD image (${skipped.map((s) => `${s.slot}: ${s.why}`).join('; ')})`;
    throw new RedfishError({ bmc, step: 'insert', failure: 'unsupported' }, why);
  }
  return { candidates, skipped };
}
