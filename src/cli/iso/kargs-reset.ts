// `bootsmith iso kargs reset [-o OUT] ISO`: writes the ISO's default kernel arguments back into
// every kargs area (byte-identical to a pristine image's areas).
// Does NOT: touch the Ignition embed area.
import { flag, optionValue } from '../args.js';
import type { Verb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { openLiveIso, writeEditedIso } from './iso-edit.js';
import { kargsAreasOf, kargsPatchesFor } from './kargs-write.js';

export const kargsReset: Verb = {
  spec: {
    name: 'bootsmith iso kargs reset',
    summary: 'Reset kernel args in an ISO image to defaults',
    options: [OUTPUT_ISO, QUIET],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const iso = await openLiveIso(args.positionals[0]!);
    const patches = kargsPatchesFor(iso, kargsAreasOf(iso).default);
    await writeEditedIso(iso, patches, { output: optionValue(args, 'output'), io, quiet: flag(args, 'quiet') });
    return 0;
  },
};
