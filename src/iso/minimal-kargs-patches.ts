// The byte patches that turn a rebuilt minimal ISO (src/iso/miniso/miniso-rebuild.ts) into what
// `coreos-installer iso extract minimal-iso --rootfs-url URL` outputs: every kargs area rewritten
// with the minimal kargs (src/iso/minimal-kargs.ts) and coreos/kargs.json rewritten in place with
// the new `default` (src/iso/minimal-kargs-json.ts). Nothing moves; every patch is exactly as
// long as the bytes it covers, so the ISO keeps its size and structure.
// Like coreos-installer, this needs kargs areas and a coreos/kargs.json (ISOs that only have the
// legacy coreKarg header, or s390x ISOs before 2023-07, are refused with a FormatError).
// Does: read kargs.json once, compute patches. Does NOT: write files or apply patches
// (src/splice serves them), add Ignition, or decide the rootfs URL.

import { FormatError } from '../errors.js';
import type { IsoFs } from './iso9660.js';
import { KARGS_JSON_PATH } from './kargs-areas.js';
import type { KargsAreas, LiveManifest } from './manifest.js';
import { rewriteKargsJsonDefault } from './minimal-kargs-json.js';
import { minimalIsoDefaultKargs, minimalIsoKargs } from './minimal-kargs.js';
import { encodeKargsArea } from './kargs-codec.js';

/** Bytes to lay over `[offset, offset + length)` of the ISO; structurally a src/splice Patch. */
export interface IsoPatch {
  offset: number;
  length: number;
  bytes: Buffer;
}

export interface MinimalKargsPlan {
  /** The kargs areas of the minimal ISO (from its manifest). */
  areas: KargsAreas;
  /** What every kargs area holds: defaults without coreos.liveiso=, with coreos.live.rootfs_url=. */
  kargs: string;
  /** The new kargs.json `default`: the original without coreos.liveiso= (no rootfs URL). */
  defaultKargs: string;
  /** The rewritten coreos/kargs.json over its whole extent. */
  kargsJson: IsoPatch;
}

/**
 * Plans the kargs edit of the minimal ISO `iso` (already opened; `manifest` = its parsed
 * manifest) for `rootfsUrl`. FormatError when the image lacks kargs areas or kargs.json, or its
 * kargs have no coreos.liveiso=; BadRequestError for an unusable URL.
 */
export async function planMinimalKargs(
  iso: IsoFs,
  manifest: Pick<LiveManifest, 'kargs'>,
  rootfsUrl: string,
): Promise<MinimalKargsPlan> {
  const fail = (reason: string): FormatError =>
    new FormatError(`editing kernel arguments of minimal ISO ${iso.path}: ${reason}`, { path: iso.path });
  const areas = manifest.kargs;
  if (areas === undefined)
    throw fail('the image has no kernel-argument embed areas, so coreos.live.rootfs_url= cannot be set');
  const entry = await iso.lookupFile(KARGS_JSON_PATH);
  if (entry === undefined)
    throw fail(
      `the image has no ${KARGS_JSON_PATH} (only a legacy coreKarg header), which coreos-installer also requires`,
    );
  iso.assertInside(entry, KARGS_JSON_PATH);
  const original = await iso.readAt(entry.offset, entry.length, KARGS_JSON_PATH);
  let defaultKargs: string;
  let kargs: string;
  try {
    defaultKargs = minimalIsoDefaultKargs(areas.default);
    kargs = minimalIsoKargs(areas.default, rootfsUrl);
  } catch (err) {
    if (err instanceof FormatError) throw fail(err.message);
    throw err;
  }
  const bytes = rewriteKargsJsonDefault(original, defaultKargs, `${KARGS_JSON_PATH} of ${iso.path}`);
  return { areas, kargs, defaultKargs, kargsJson: { offset: entry.offset, length: entry.length, bytes } };
}

/**
 * The patches for a plan: every kargs area holding `plan.kargs` followed by `extraKargs` (e.g. an
 * InfraEnv's kernel_arguments), and kargs.json. Sorted by offset, non-overlapping.
 * PayloadTooLargeError when the kargs do not fit the areas.
 */
export function minimalKargsPatches(plan: MinimalKargsPlan, extraKargs: readonly string[] = []): IsoPatch[] {
  const kargs = [plan.kargs, ...extraKargs].join(' ');
  const { areas } = plan;
  const patches: IsoPatch[] = areas.locations.map((location) => ({
    offset: location.offset,
    length: areas.size,
    bytes: encodeKargsArea(kargs, areas, location),
  }));
  patches.push(plan.kargsJson);
  return patches.sort((a, b) => a.offset - b.offset);
}
