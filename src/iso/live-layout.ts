// Parsing a CoreOS live ISO once into a LiveManifest (src/iso/manifest.ts): the Ignition embed
// area, the kernel-argument areas, coreos/features.json and the extents of the boot files.
//
// Does: open the image, locate every area (src/iso/ignition-area.ts, kargs-areas.ts), check that
// all kargs areas currently agree and that no two areas overlap, find boot files by their friendly
// paths (resolved like coreos-installer's 8.3 names, see src/iso/iso9660.ts), check every extent
// lies inside the file, and record the boot loaders that tell an architecture (the El Torito
// catalog's platforms, src/iso/el-torito.ts; isolinux; ppc/bootinfo.txt) for layout-arch.ts.
// Every problem is a FormatError naming the image and the reason.
// Does NOT: decode the Ignition area, unpack miniso.dat, cache manifests (src/images does), or
// serve bytes (src/splice does).

import { FormatError } from '../errors.js';
import { locateIgnitionArea } from './ignition-area.js';
import { extentContains, withIsoFs, type IsoFs } from './iso9660.js';
import { JsonFileContext, readJsonObject } from './json-file.js';
import { locateKargsAreas } from './kargs-areas.js';
import type { ParseBudgetLimits } from './parse-budget.js';
import type { BootFiles, Extent, IgnitionArea, KargsAreas, LiveManifest, LoaderEvidence } from './manifest.js';
import { kargsInAreas } from './read-embed-areas.js';
import { CDBOOT_FILE, checkCdboot } from './s390x-cdboot.js';
import { readBootCatalog } from './el-torito.js';

export const FEATURES_JSON_PATH = 'coreos/features.json';
const S390X_AREA_FILE = CDBOOT_FILE;
const S390X_INS_FILE = 'generic.ins';

/**
 * Candidate paths of each boot file, best first. s390x ISOs call the kernel kernel.img
 * (z/VM CMS names are 8.3); newer ones put kernel and initrd directly under images/.
 */
const BOOT_FILE_PATHS: Record<keyof BootFiles, { default: string[]; s390x: string[] }> = {
  kernel: {
    default: ['images/pxeboot/vmlinuz', 'images/kernel.img', 'images/pxeboot/kernel.img'],
    s390x: ['images/kernel.img', 'images/pxeboot/kernel.img', 'images/pxeboot/vmlinuz'],
  },
  initrd: {
    default: ['images/pxeboot/initrd.img', 'images/initrd.img'],
    s390x: ['images/pxeboot/initrd.img', 'images/initrd.img'],
  },
  rootfs: { default: ['images/pxeboot/rootfs.img'], s390x: ['images/pxeboot/rootfs.img'] },
  insFile: { default: [S390X_INS_FILE], s390x: [S390X_INS_FILE] },
  initrdAddrsize: { default: ['images/initrd.addrsize'], s390x: ['images/initrd.addrsize'] },
  minisoData: { default: ['coreos/miniso.dat'], s390x: ['coreos/miniso.dat'] },
};

/** Parses the live ISO at `path` into its manifest, within the parsing budgets of src/iso/parse-budget.ts. */
export async function parseLiveIso(path: string, limits: Partial<ParseBudgetLimits> = {}): Promise<LiveManifest> {
  return withIsoFs(path, parseLiveIsoFs, limits);
}

/** Parses an already opened image (the caller keeps ownership of `iso`). */
export async function parseLiveIsoFs(iso: IsoFs): Promise<LiveManifest> {
  const ignition = await locateIgnitionArea(iso);
  const kargs = await locateKargsAreas(iso);
  if (kargs !== undefined) await kargsInAreas((o, l, what) => iso.readAt(o, l, what), kargs, iso.path);
  checkNoOverlap(iso.path, ignition, kargs);
  const layoutArch = await detectLayoutArch(iso, ignition);
  const cdboot = await iso.lookupFile(S390X_AREA_FILE);
  if (cdboot !== undefined && ignition.file === S390X_AREA_FILE)
    await checkCdboot(iso.path, cdboot, ignition, (o, l, what) => iso.readAt(o, l, what));
  const manifest: LiveManifest = {
    formatVersion: 1,
    size: iso.size,
    volumeId: iso.volumeId,
    layoutArch,
    ignition,
    files: await findBootFiles(iso, layoutArch),
  };
  const loaderEvidence = layoutArch === 's390x' ? [] : await findLoaderEvidence(iso);
  if (loaderEvidence.length > 0) manifest.loaderEvidence = loaderEvidence;
  if (kargs !== undefined) manifest.kargs = kargs;
  const features = await readFeatures(iso);
  if (features !== undefined) manifest.features = features;
  return manifest;
}

async function detectLayoutArch(iso: IsoFs, ignition: IgnitionArea): Promise<LiveManifest['layoutArch']> {
  const cdboot = await iso.lookup(S390X_AREA_FILE);
  const inCdboot = cdboot !== undefined && !cdboot.isDirectory && extentContains(cdboot, ignition);
  if (inCdboot || (await iso.lookup(S390X_INS_FILE)) !== undefined) return 's390x';
  return 'default';
}

/**
 * What only one architecture's firmware boots, outside s390x's layout (detectLayoutArch): an El
 * Torito BIOS entry or isolinux (x86_64), a catalog with a UEFI entry only (aarch64: CoreOS's x86_64
 * ISOs always add the BIOS one), ppc/bootinfo.txt (the CHRP script IEEE-1275 firmware reads: ppc64le).
 */
const LOADER_FILES: readonly { path: string; arch: LoaderEvidence['arch'] }[] = [
  { path: 'isolinux/isolinux.bin', arch: 'x86_64' },
  { path: 'ppc/bootinfo.txt', arch: 'ppc64le' },
];
const EL_TORITO_BIOS = 0x00;
const EL_TORITO_EFI = 0xef;
const CATALOG = 'the El Torito boot catalog';

async function findLoaderEvidence(iso: IsoFs): Promise<LoaderEvidence[]> {
  const found: LoaderEvidence[] = [];
  const catalog = await readBootCatalog((o, l, what) => iso.readAt(o, l, what), iso.size);
  if (catalog?.platforms.includes(EL_TORITO_BIOS))
    found.push({ arch: 'x86_64', file: `${CATALOG} (a BIOS entry)`, offset: catalog.offset });
  else if (catalog?.platforms.includes(EL_TORITO_EFI))
    found.push({ arch: 'aarch64', file: `${CATALOG} (a UEFI entry only)`, offset: catalog.offset });
  for (const { path, arch } of LOADER_FILES) {
    const entry = await iso.lookup(path);
    if (entry !== undefined && !entry.isDirectory) found.push({ arch, file: path, offset: entry.offset });
  }
  return found;
}

async function findBootFiles(iso: IsoFs, arch: LiveManifest['layoutArch']): Promise<BootFiles> {
  const files: BootFiles = {};
  for (const key of Object.keys(BOOT_FILE_PATHS) as (keyof BootFiles)[]) {
    for (const candidate of BOOT_FILE_PATHS[key][arch]) {
      const entry = await iso.lookup(candidate);
      if (entry === undefined || entry.isDirectory) continue;
      iso.assertInside(entry, candidate);
      files[key] = { offset: entry.offset, length: entry.length };
      break;
    }
  }
  return files;
}

async function readFeatures(iso: IsoFs): Promise<Record<string, unknown> | undefined> {
  const entry = await iso.lookupFile(FEATURES_JSON_PATH);
  if (entry === undefined) return undefined;
  return readJsonObject(iso, entry, new JsonFileContext(iso.path, FEATURES_JSON_PATH));
}

/** Patches must not overlap: the Ignition area and every kargs area are disjoint. */
function checkNoOverlap(path: string, ignition: IgnitionArea, kargs: KargsAreas | undefined): void {
  const areas: (Extent & { what: string })[] = [{ ...ignition, what: `Ignition embed area in ${ignition.file}` }];
  for (const loc of kargs?.locations ?? []) {
    areas.push({ offset: loc.offset, length: kargs?.size ?? 0, what: `kargs area in ${loc.file}` });
  }
  areas.sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < areas.length; i++) {
    const prev = areas[i - 1];
    const cur = areas[i];
    if (prev !== undefined && cur !== undefined && prev.offset + prev.length > cur.offset) {
      throw new FormatError(`checking embed areas of ${path}: the ${prev.what} overlaps the ${cur.what}`, { path });
    }
  }
}
