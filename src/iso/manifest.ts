// The parsed description of one CoreOS live ISO: everything the serving path needs,
// computed once per base image (src/iso/live-layout.ts) and persisted as JSON.
//
// All offsets are absolute byte offsets into the ISO file, held in JS numbers
// (exact up to 2^53, far beyond any ISO); they are never computed with 32-bit math.
// This module holds types and small pure helpers only; it does no I/O.

/** A contiguous byte range of the ISO file. */
export interface Extent {
  offset: number;
  length: number;
}

/** The Ignition embed area: where the compressed cpio archive is written, zero-padded. */
export interface IgnitionArea extends Extent {
  /** ISO path of the file holding the area, e.g. `images/ignition.img` or `images/cdboot.img`. */
  file: string;
}

/** One place in the ISO where kernel arguments are written (a grub.cfg / isolinux.cfg area). */
export interface KargsLocation {
  /** ISO path of the file, e.g. `EFI/fedora/grub.cfg`. */
  file: string;
  /** Absolute byte offset of the area in the ISO. */
  offset: number;
  /**
   * Fill and terminator characters of this area. kargs.json gives them per file
   * (`files[].pad` / `files[].end`); the parser always sets them. When absent (manifests written
   * by hand), `KargsAreas.pad` / `KargsAreas.end` apply.
   */
  pad?: string;
  end?: string;
}

/** Kernel-argument embed areas, from `coreos/kargs.json` or the legacy `coreKarg` header. */
export interface KargsAreas {
  /** The kernel arguments the ISO ships with. */
  default: string;
  /** Bytes in each area, including the terminating `end` string. */
  size: number;
  /**
   * Fill character after the kargs (`#` unless kargs.json says otherwise). kargs.json sets it per
   * file; this is the first location's value, and each location carries its own.
   */
  pad: string;
  /** Terminator written right after the kargs (`\n` unless kargs.json says otherwise); as `pad`. */
  end: string;
  locations: KargsLocation[];
  /** Where the areas came from. */
  source: 'kargs.json' | 'legacy-header';
}

/** Byte ranges of boot files served directly out of the ISO. Absent when the ISO lacks them. */
export interface BootFiles {
  kernel?: Extent; // images/pxeboot/vmlinuz, or images/kernel.img on s390x
  initrd?: Extent; // images/pxeboot/initrd.img
  rootfs?: Extent; // images/pxeboot/rootfs.img
  insFile?: Extent; // /generic.ins (s390x)
  initrdAddrsize?: Extent; // images/initrd.addrsize (s390x)
  minisoData?: Extent; // coreos/miniso.dat
}

/** What tells an architecture (src/iso/live-layout.ts): an El Torito BIOS entry or isolinux (x86_64), a UEFI-only catalog (aarch64), ppc/bootinfo.txt (ppc64le). */
export interface LoaderEvidence {
  arch: 'x86_64' | 'aarch64' | 'ppc64le';
  file: string;
  offset: number;
}

export interface LiveManifest {
  /** Manifest format version; bump when the shape changes so persisted manifests are re-parsed. */
  formatVersion: 1;
  /** Size of the ISO file in bytes. */
  size: number;
  /** ISO 9660 volume identifier (e.g. `rhcos-414.92.202310170514-0`). */
  volumeId: string;
  /** `s390x` when the layout is the s390x one (area in cdboot.img), `x86_64`-style otherwise. */
  layoutArch: 's390x' | 'default';
  /**
   * The boot loaders the image carries that only one architecture runs, each with its file and
   * offset (src/iso/live-layout.ts). Absent in manifests parsed before it was recorded.
   */
  loaderEvidence?: LoaderEvidence[];
  ignition: IgnitionArea;
  kargs?: KargsAreas;
  /** coreos/features.json when present. */
  features?: Record<string, unknown>;
  files: BootFiles;
}
