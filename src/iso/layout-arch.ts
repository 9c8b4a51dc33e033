// Which architecture a parsed live ISO's layout belongs to, against the one it is configured for:
// an s390x layout keeps its Ignition area inside images/cdboot.img (or has generic.ins); every other
// architecture keeps it in a file of its own (images/ignition.img). An image configured for one and
// carrying the other would be spliced where its boot path never looks.
//
// Does: compare (pure; the manifest from live-layout.ts). Does NOT: read the image, or tell aarch64,
// ppc64le and x86_64 layouts apart (their embed and kargs areas are found the same way).
import type { LiveManifest } from './manifest.js';

export interface LayoutMismatch {
  message: string;
  file: string;
  offset: number;
}

/** Undefined when the layout fits `cpuArchitecture` (x86_64, aarch64, ppc64le, s390x). */
export function layoutArchMismatch(manifest: LiveManifest, cpuArchitecture: string): LayoutMismatch | undefined {
  const wantS390x = cpuArchitecture === 's390x';
  if (wantS390x === (manifest.layoutArch === 's390x')) return undefined;
  const where = `the Ignition area is ${manifest.ignition.file} at byte ${manifest.ignition.offset}`;
  return {
    message: wantS390x
      ? `configured as s390x, but its layout is not s390x's (${where}, not inside images/cdboot.img)`
      : `configured as ${cpuArchitecture}, but it carries the s390x layout (${where})`,
    file: manifest.ignition.file,
    offset: manifest.ignition.offset,
  };
}
