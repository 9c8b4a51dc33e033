// `bootsmith iso kargs show [--default] ISO`: the kernel arguments the ISO carries now, or with
// `--default` the ones it was built with (coreos/kargs.json `default`, or the coreKarg header's).
// Does NOT: check more than the parser does (all areas must agree).
import { argument, flagOption } from '../options.js';
import { defineVerb } from '../verb.js';
import { openLiveIso, readCurrentKargs } from './iso-edit.js';
import { kargsAreasOf } from './kargs-write.js';

export const kargsShow = defineVerb({
  name: 'bootsmith iso kargs show',
  summary: 'Show kernel args from an ISO image',
  options: {
    default: flagOption({
      long: 'default',
      short: 'd',
      help: 'show the original kernel args instead of the current ones',
    }),
  },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const areas = kargsAreasOf(iso);
    const kargs = options.default ? areas.default : (await readCurrentKargs(iso))!;
    io.stdout.write(`${kargs}\n`);
    return 0;
  },
});
