// Public surface of src/iso: ISO 9660 reading and the CoreOS live layout, parsed once into a
// LiveManifest. Other modules import from here, not from the individual files.

export type { BootFiles, Extent, IgnitionArea, KargsAreas, KargsLocation, LiveManifest } from './manifest.js';
export { extentContains, IsoFs, openIsoFs, SECTOR_SIZE, withIsoFs, type IsoEntry, type WalkEntry } from './iso9660.js';
export { parseLiveIso, parseLiveIsoFs } from './live-layout.js';
export {
  decodeKargsArea,
  encodeKargsArea,
  kargsInAreas,
  locationChars,
  readEmbeddedKargs,
  readIgnitionArea,
  type ReadRange,
} from './read-kargs.js';
