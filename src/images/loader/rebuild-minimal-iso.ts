// The one call from the image store into the minimal-ISO format library (src/iso/miniso/miniso.ts):
// rebuild the byte-exact minimal ISO described by a full ISO's `coreos/miniso.dat` into
// `outPath`, verifying the SHA-256 that miniso.dat records, or throw. The library writes a
// temp file beside `outPath` and renames it only once the digest matches.
//
// Kept as a function type so tests can stand in for the library when they exercise the store's
// handling of the result (a corrupt result, a failure) rather than the format itself.
import type { LiveManifest } from '../../iso/manifest.js';
import { rebuildMinimalIso } from '../../iso/miniso/miniso.js';

/** Writes the minimal ISO rebuilt from `fullIsoPath` (parsed as `manifest`) to `outPath`; resolves with its verified sha256. */
export type RebuildMinimalIso = (
  fullIsoPath: string,
  manifest: LiveManifest,
  outPath: string,
  signal: AbortSignal,
) => Promise<{ sha256: string }>;

export const rebuildMinimalIsoFromMinisoDat: RebuildMinimalIso = (fullIsoPath, manifest, outPath, signal) =>
  rebuildMinimalIso(fullIsoPath, manifest, outPath, { signal });
