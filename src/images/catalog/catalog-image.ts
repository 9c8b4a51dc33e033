// The read-only view of the configured base images that the assisted core needs:
// which versions/architectures exist and how large each one's Ignition embed area is.
//
// Implemented by the image store's catalog (src/images/catalog/store-catalog.ts). This module declares
// the interface; it does no I/O. Architecture names: src/cpu-architecture.ts.
import type { CpuArchitecture } from '../../cpu-architecture.js';

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
