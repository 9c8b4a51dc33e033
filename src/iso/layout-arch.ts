// Which architecture a parsed live ISO's layout belongs to, against the one it is configured for:
// an s390x layout keeps its Ignition area inside images/cdboot.img (or has generic.ins); every other
// architecture keeps it in a file of its own (images/ignition.img). An image configured for one and
// carrying the other would be spliced where its boot path never looks.
//
// aarch64, ppc64le and x86_64 keep their areas alike, so their boot loaders tell them apart: an
// image whose loaders (manifest.loaderEvidence: an El Torito BIOS entry or isolinux for x86_64, a
// catalog with a UEFI entry only for aarch64, ppc/bootinfo.txt for ppc64le) include none of the configured
// arch's is refused, naming them. An image with none of them (older manifests, bare test images)
// is not judged by them.
// Does: compare (pure; the manifest from live-layout.ts). Does NOT: read the image.
import type { LiveManifest, LoaderEvidence } from './manifest.js';

export interface LayoutMismatch {
  message: string;
  file: string;
  offset: number;
}

/** Undefined when the layout fits `cpuArchitecture` (x86_64, aarch64, ppc64le, s390x). */
export function layoutArchMismatch(manifest: LiveManifest, cpuArchitecture: string): LayoutMismatch | undefined {
  const wantS390x = cpuArchitecture === 's390x';
  if (wantS390x !== (manifest.layoutArch === 's390x')) {
    const where = `the Ignition area is ${manifest.ignition.file} at byte ${manifest.ignition.offset}`;
    return {
      message: wantS390x
        ? `configured as s390x, but its layout is not s390x's (${where}, not inside images/cdboot.img)`
        : `configured as ${cpuArchitecture}, but it carries the s390x layout (${where})`,
      file: manifest.ignition.file,
      offset: manifest.ignition.offset,
    };
  }
  return loaderMismatch(manifest.loaderEvidence ?? [], cpuArchitecture);
}

/** The boot loaders say which architectures the image boots on; the configured one must be among them. */
function loaderMismatch(evidence: readonly LoaderEvidence[], cpuArchitecture: string): LayoutMismatch | undefined {
  if (evidence.length === 0 || evidence.some((e) => e.arch === cpuArchitecture)) return undefined;
  const first = evidence[0]!;
  const arches = [...new Set(evidence.map((e) => e.arch))].join(' and ');
  return {
    message: `configured as ${cpuArchitecture}, but its boot loaders are ${arches}'s (${evidence
      .map((e) => `${e.file} at byte ${e.offset}`)
      .join(', ')}); none is ${cpuArchitecture}'s`,
    file: first.file,
    offset: first.offset,
  };
}
