// v2ListSupportedOpenshiftVersions from the image catalog: one entry per configured
// openshift_version, keyed and displayed by it, with the architectures it has images for.
//
// Upstream builds this from release images and marks an architecture available only when an OS
// image exists for it (internal/versions/api.go); this core has OS images only, so each
// configured image is both. `support_level` follows upstream's fallback for release images
// without one: `beta` for a pre-release version (a `-` suffix such as `4.18.0-ec.2`), else
// `production`. `default` marks the newest production version (upstream reads it from its
// release-image configuration, which this core has not). `version` keeps the display names that
// contain it; `only_latest` keeps the newest version of each major.minor; both may combine.
// Images whose load failed for good are left out. Pure: no I/O.
import type { CatalogImage } from '../../images/catalog/catalog-image.js';

export interface OpenshiftVersion {
  display_name: string;
  support_level: 'beta' | 'production';
  default: boolean;
  cpu_architectures: string[];
}

/** Orders "4.16.3" after "4.9" and "4.16"; non-numeric parts compare as text. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const nx = Number(x);
    const ny = Number(y);
    const c = Number.isFinite(nx) && Number.isFinite(ny) && x !== '' && y !== '' ? nx - ny : x.localeCompare(y);
    if (c !== 0) return c;
  }
  return 0;
}

function isPreRelease(version: string): boolean {
  return /^\d+(?:\.\d+)*-/.test(version);
}

function majorMinor(version: string): string {
  return version.split(/[.-]/).slice(0, 2).join('.');
}

export function openshiftVersions(
  images: readonly CatalogImage[],
  filter: { version?: string | undefined; onlyLatest?: boolean | undefined } = {},
): Record<string, OpenshiftVersion> {
  const byVersion = new Map<string, Set<string>>();
  for (const img of images) {
    if (img.state === 'failed') continue;
    const arches = byVersion.get(img.openshiftVersion) ?? new Set<string>();
    arches.add(img.cpuArchitecture);
    byVersion.set(img.openshiftVersion, arches);
  }
  let versions = [...byVersion.keys()].sort(compareVersions);
  const newestProduction = versions.filter((v) => !isPreRelease(v)).at(-1);
  if (filter.version !== undefined) versions = versions.filter((v) => v.includes(filter.version!));
  if (filter.onlyLatest) {
    const latest = new Map<string, string>();
    for (const v of versions) latest.set(majorMinor(v), v); // sorted ascending: the last one wins
    versions = versions.filter((v) => latest.get(majorMinor(v)) === v);
  }
  const out: Record<string, OpenshiftVersion> = {};
  for (const v of versions) {
    out[v] = {
      display_name: v,
      support_level: isPreRelease(v) ? 'beta' : 'production',
      default: v === newestProduction,
      cpu_architectures: [...byVersion.get(v)!].sort(),
    };
  }
  return out;
}
