// Writing one kernel command line into every kargs area of an ISO, so all areas stay identical
// (coreos-installer refuses images whose areas disagree). A command line that does not fit is
// refused before anything is written, with the room left in the areas.
// Does NOT: decide the kargs (../input/kargs-edit.ts and the verbs do).
import { PayloadTooLargeError } from '../../errors.js';
import { encodeKargsArea } from '../../iso/kargs-codec.js';
import type { KargsAreas } from '../../iso/manifest.js';
import type { Patch } from '../../splice/spliced-file.js';
import { CliError } from '../verb.js';
import type { LiveIsoFile } from './iso-edit.js';

/** The image's kargs areas, or the coreos-installer-style refusal for images without them. */
export function kargsAreasOf(iso: LiveIsoFile): KargsAreas {
  const areas = iso.manifest.kargs;
  if (areas === undefined)
    throw new CliError(iso.path, 'no kargs embed areas found; old or corrupted CoreOS ISO image?');
  return areas;
}

export function kargsPatchesFor(iso: LiveIsoFile, kargs: string): Patch[] {
  const areas = kargsAreasOf(iso);
  try {
    return areas.locations.map((location) => ({
      offset: location.offset,
      length: areas.size,
      bytes: encodeKargsArea(kargs, areas, location),
    }));
  } catch (err) {
    if (err instanceof PayloadTooLargeError) {
      const room = areas.size - 1;
      throw new CliError(
        iso.path,
        `kernel arguments are ${err.payloadSize - 1} bytes but the kargs areas hold ${room}; ${err.payloadSize - 1 - room} bytes too many`,
      );
    }
    throw err;
  }
}
