// What the reads of a boot job's ISO URL cover, and when they mean "booted". Pure.
//
// The rule for "booted": the reads of the job's own token have covered, byte for byte, the ISO's
// boot files as the served ISO places them — the kernel (images/pxeboot/vmlinuz), the initramfs
// (images/pxeboot/initrd.img) and the Ignition embed area (images/ignition.img). A BMC that only
// mounts the image reads the volume descriptors and the directory; a host's boot loader (GRUB on
// UEFI, isolinux on BIOS) loads the kernel and then the initramfs and ignition.img as initrds,
// in that order, so once the embed area has been read in full behind the kernel and the
// initramfs, the firmware has handed the boot loader everything the live system starts from.
// (qemu's curl driver, a fair model of a BMC, reads them in 320 KiB ranges; see
// test/support/redfish-emulator/curl-read-plan.ts.) A BMC that copies the whole image before
// booting also satisfies the rule early: it cannot be told apart by its reads.
// When the served ISO names no boot file (never the case for CoreOS), the rule is undefined and
// `booted` is never reached by reads; the job then waits for the registration instead.
//
// Ranges are half-open [start, end), merged and sorted, at most MAX_READ_RANGES per replica
// (the gaps between the closest neighbours are filled first: a bounded summary that only ever
// over-states coverage by the filled gaps, which the boot files' own extents make irrelevant:
// a host reading them does so contiguously).
// Does NOT: read anything; ./read-tracker.ts accumulates, ./follow-plan.ts decides.
import type { ReadRange } from '../store/records.js';

/** Ranges kept per replica and job: a boot reads a few contiguous runs; 256 is ample and bounded. */
export const MAX_READ_RANGES = 256;

/** Sorted, merged (touching ranges joined), empty ranges dropped. */
export function mergeRanges(ranges: readonly ReadRange[]): ReadRange[] {
  const sorted = ranges.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: ReadRange[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Adds `range` to merged `ranges`, keeping at most `max` (the smallest gaps filled first). */
export function addRange(ranges: readonly ReadRange[], range: ReadRange, max = MAX_READ_RANGES): ReadRange[] {
  const merged = mergeRanges([...ranges, range]);
  while (merged.length > max) {
    let smallest = 0;
    for (let i = 1; i < merged.length - 1; i++) {
      if (merged[i + 1]![0] - merged[i]![1] < merged[smallest + 1]![0] - merged[smallest]![1]) smallest = i;
    }
    merged.splice(smallest, 2, [merged[smallest]![0], merged[smallest + 1]![1]]);
  }
  return merged;
}

/** Bytes of `extent` inside the merged `ranges`. */
export function coveredBytes(ranges: readonly ReadRange[], extent: ReadRange): number {
  let covered = 0;
  for (const [s, e] of ranges) {
    const from = Math.max(s, extent[0]);
    const to = Math.min(e, extent[1]);
    if (to > from) covered += to - from;
  }
  return covered;
}

export interface BootCoverage {
  /** Bytes of the boot files read, and their total. */
  covered: number;
  total: number;
  /** Every boot file read in full. Undefined when no boot file is known (the rule does not apply). */
  booted: boolean | undefined;
}

/** How much of the boot files `ranges` cover (any replica's ranges, merged by the caller). */
export function bootCoverage(ranges: readonly ReadRange[], bootExtents: readonly ReadRange[]): BootCoverage {
  const extents = mergeRanges(bootExtents);
  const total = extents.reduce((n, [s, e]) => n + (e - s), 0);
  const merged = mergeRanges(ranges);
  const covered = extents.reduce((n, x) => n + coveredBytes(merged, x), 0);
  return { covered, total, booted: total === 0 ? undefined : covered === total };
}
