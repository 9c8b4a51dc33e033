// `bootsmith iso kargs reset [-o OUT] ISO`: writes the ISO's default kernel arguments back into
// every kargs area (byte-identical to a pristine image's areas).
// Does NOT: touch the Ignition embed area.
import { argument } from '../options.js';
import { defineVerb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { openLiveIso, writeEditedIso } from './iso-edit.js';
import { kargsAreasOf, kargsPatchesFor } from './kargs-write.js';

export const kargsReset = defineVerb({
  name: 'bootsmith iso kargs reset',
  summary: 'Reset kernel args in an ISO image to defaults',
  options: { output: OUTPUT_ISO, quiet: QUIET },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const patches = kargsPatchesFor(iso, kargsAreasOf(iso).default);
    await writeEditedIso(iso, patches, { output: options.output, io, quiet: options.quiet });
    return 0;
  },
});
