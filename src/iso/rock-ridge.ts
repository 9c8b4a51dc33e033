// Rock Ridge (RRIP) names out of the SUSP entries in a directory record's System Use area.
//
// Does: detect SUSP from the `SP` entry of the root's `.` record, collect `NM` entries (with
// CONTINUE) across `CE` continuation areas, stop at `ST`.
// Every byte scanned is charged to the image's ParseBudget (src/iso/parse-budget.ts): SUSP bytes
// per directory and per image, each continuation area visited at most once per image, names
// bounded in length; over budget is a BudgetExceededError.
// Does NOT: interpret any other entry (PX, TF, SL, ...), follow deep-directory relocation
// (CL/PL/RE), or read Joliet. coreos-installer ignores Rock Ridge entirely; bootsmith uses the
// names only for listing and as one more way to resolve a friendly path.

import { SECTOR_SIZE } from './directory-record.js';
import { DirectoryCharge, ParseBudget } from './parse-budget.js';

export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

const NM_CONTINUE = 0x01;
const NM_CURRENT = 0x02;
const NM_PARENT = 0x04;
/** Continuation areas are tiny in practice (one per record, a few hundred bytes); refuse absurd chains or sizes. */
const MAX_CONTINUATIONS = 32;
/** One continuation area lies within one logical block (SUSP 5.1), so it can never exceed a sector. */
const MAX_CONTINUATION_BYTES = SECTOR_SIZE;

/**
 * Returns the SUSP skip length (`LEN_SKP`) when the System Use area of the root directory's `.`
 * record starts with a valid `SP` entry, and undefined when the image does not use SUSP.
 */
export function suspSkipLength(rootSelfSystemUse: Buffer): number | undefined {
  const su = rootSelfSystemUse;
  if (su.length < 7) return undefined;
  if (su.toString('latin1', 0, 2) !== 'SP' || su[2] !== 7 || su[4] !== 0xbe || su[5] !== 0xef) return undefined;
  return su[6];
}

interface Continuation {
  block: number;
  within: number;
  length: number;
}

interface ScanState {
  parts: Buffer[];
  nameBytes: number;
  complete: boolean;
  next?: Continuation;
}

/** Scans one SUSP area for NM pieces and a CE pointer; stops at ST or at a malformed entry. */
function scanArea(area: Buffer, start: number, state: ScanState, budget: ParseBudget): void {
  let pos = start;
  while (pos + 4 <= area.length && !state.complete) {
    const signature = area.toString('latin1', pos, pos + 2);
    const length = area.readUInt8(pos + 2);
    if (length < 4 || pos + length > area.length || signature === 'ST') return;
    if (signature === 'NM' && length >= 5) {
      const flags = area.readUInt8(pos + 4);
      if ((flags & (NM_CURRENT | NM_PARENT)) === 0) {
        state.nameBytes += length - 5;
        budget.checkNameLength(state.nameBytes);
        state.parts.push(area.subarray(pos + 5, pos + length));
        if ((flags & NM_CONTINUE) === 0) state.complete = true;
      }
    } else if (signature === 'CE' && length >= 28) {
      state.next = {
        block: area.readUInt32LE(pos + 4),
        within: area.readUInt32LE(pos + 12),
        length: area.readUInt32LE(pos + 20),
      };
    }
    pos += length;
  }
}

/**
 * The Rock Ridge name of a record, or undefined when it has none. `skip` is the image's SUSP skip
 * length; `readAt` reads continuation areas; every byte scanned is charged to `budget` and `dir`.
 */
export async function rockRidgeName(
  systemUse: Buffer,
  skip: number,
  readAt: ReadAt,
  budget: ParseBudget = new ParseBudget(),
  dir: DirectoryCharge = new DirectoryCharge(),
): Promise<string | undefined> {
  const state: ScanState = { parts: [], nameBytes: 0, complete: false };
  budget.chargeSusp(systemUse.length, dir);
  scanArea(systemUse, skip, state, budget);
  for (let hops = 0; !state.complete && state.next !== undefined; hops++) {
    const { block, within, length } = state.next;
    if (hops >= MAX_CONTINUATIONS) throw new Error(`more than ${MAX_CONTINUATIONS} Rock Ridge continuation areas`);
    if (within >= SECTOR_SIZE || length > MAX_CONTINUATION_BYTES || within + length > SECTOR_SIZE) {
      throw new Error(
        `Rock Ridge continuation area of ${length} bytes at offset ${within} does not fit in one ${SECTOR_SIZE}-byte block`,
      );
    }
    budget.visitContinuation(block, within);
    budget.chargeSusp(length, dir);
    state.next = undefined;
    scanArea(await readAt(block * SECTOR_SIZE + within, length), 0, state, budget);
  }
  if (state.parts.length === 0) return undefined;
  return Buffer.concat(state.parts).toString('utf8');
}
