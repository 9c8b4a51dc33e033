// Minimal ISOs from CoreOS live ISOs that carry coreos/miniso.dat: the public face of the
// miniso format library. A full live ISO built by coreos-assembler reserves coreos/miniso.dat,
// which `coreos-installer pack minimal-iso` fills with a table of files shared with the minimal
// ISO (the same ISO without images/pxeboot/rootfs.img), the xz-compressed remaining bytes and
// the minimal ISO's SHA-256, so the byte-exact minimal ISO can be rebuilt from the full one.
//
// Parts, one concept each:
//   miniso-bincode.ts   the bincode 1.x encoding miniso.dat uses
//   miniso-format.ts    miniso.dat version 1: decode, encode, validate
//   miniso-xz.ts        xz through the system program, streaming, as coreos-installer packs
//   miniso-rebuild.ts   rebuilding (and verifying) the minimal ISO from the full ISO
//   miniso-pack.ts      writing miniso.dat (coreos-installer pack minimal-iso)
// Kernel-argument changes for minimal ISOs live in src/iso/minimal-kargs*.ts.
// Does NOT: decide where rebuilt ISOs are cached (src/images) or serve them (src/http).

export {
  encodeMinisoData,
  MINISO_MAGIC,
  MINISO_MAX_BYTES,
  MINISO_PATH,
  MINISO_VERSION,
  parseMinisoData,
  type MinisoData,
  type MinisoEntry,
} from './miniso-format.js';
export {
  checkPristine,
  readMinisoData,
  rebuildMinimalIso,
  type FullIso,
  type RebuildOptions,
  type RebuildResult,
} from './miniso-rebuild.js';
export {
  buildMinisoData,
  collectIsoFiles,
  DEFAULT_APP_VERSION,
  packMinimalIso,
  writeMinisoData,
  type PackOptions,
  type PackStats,
} from './miniso-pack.js';
