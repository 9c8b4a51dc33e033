// `bootsmith iso reset [-o OUT] ISO`: removes every customisation, as coreos-installer's `iso
// reset` does: the embed area is zeroed (Ignition config, network keyfiles, installer files) and
// every kargs area gets the default kernel arguments back, so a customised image returns to its
// pristine bytes. ISOs without kargs areas only get the embed area zeroed.
// Does NOT: read what the areas held (a corrupt embed area is reset all the same).
import { argument } from '../options.js';
import { defineVerb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, writeEditedIso } from './iso-edit.js';
import { kargsPatchesFor } from './kargs-write.js';

export const isoReset = defineVerb({
  name: 'bootsmith iso reset',
  summary: 'Restore a CoreOS live ISO image to default settings',
  options: { output: OUTPUT_ISO, quiet: QUIET },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const patches = [await embedAreaPatch(iso, [])];
    if (iso.manifest.kargs !== undefined) patches.push(...kargsPatchesFor(iso, iso.manifest.kargs.default));
    await writeEditedIso(iso, patches, { output: options.output, io, quiet: options.quiet });
    return 0;
  },
});
