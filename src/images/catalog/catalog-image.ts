// The read-only view of the configured base images that the assisted core needs:
// which versions/architectures exist and how large each one's Ignition embed area is.
//
// Implemented by the image store's catalog (src/images/catalog/store-catalog.ts). This module declares
// the interface and the architecture-name normalisation; it does no I/O.

export type CpuArchitecture = 'x86_64' | 'aarch64' | 'ppc64le' | 's390x';

export interface CatalogImage {
  openshiftVersion: string;
  version: string;
  cpuArchitecture: CpuArchitecture;
  /** Capacity of the Ignition embed area in bytes; undefined until the image is parsed. */
  embedAreaBytes: number | undefined;
  /**
   * Bytes the full ISO's kargs areas leave for appended kernel arguments (separating spaces
   * included; coreos-installer requires kargs shorter than the area); 0 when the image has no
   * kargs area, undefined until the image is parsed.
   */
  kernelArgumentsBytes: number | undefined;
  /** Whether a minimal ISO can be served from this image. */
  minimalIsoSupported: boolean;
  state: 'pending' | 'ready' | 'failed';
  /** OS_IMAGES `rootfs_url`: iPXE scripts boot the rootfs from there; undefined: /boot-artifacts/rootfs. */
  rootfsUrl?: string;
}

export interface ImageCatalog {
  images(): CatalogImage[];
  /** `version` matches an image's version or openshift_version; arch aliases are accepted. */
  find(version: string, arch: string): CatalogImage | undefined;
}

const ARCH_ALIASES: Record<string, CpuArchitecture> = {
  x86_64: 'x86_64',
  amd64: 'x86_64',
  aarch64: 'aarch64',
  arm64: 'aarch64',
  ppc64le: 'ppc64le',
  s390x: 's390x',
};

/** Normalises `amd64`≡`x86_64`, `arm64`≡`aarch64`; undefined for unknown names. */
export function normalizeArchitecture(arch: string): CpuArchitecture | undefined {
  return ARCH_ALIASES[arch.toLowerCase()];
}
