// `bootsmith iso ignition show ISO`: prints the embedded Ignition config as stored. An ISO
// without one is an error (exit 1), as with coreos-installer.
// Does NOT: pretty-print or validate the config.
import { argument } from '../options.js';
import { CliError, defineVerb } from '../verb.js';
import { openLiveIso, readEmbedContents } from './iso-edit.js';

export const ignitionShow = defineVerb({
  name: 'bootsmith iso ignition show',
  summary: 'Show the embedded Ignition config from an ISO image',
  options: {},
  positionals: { iso: argument('ISO') },
  async run({ positionals }, io) {
    const contents = await readEmbedContents(await openLiveIso(positionals.iso));
    if (contents.ignition === undefined) throw new CliError(positionals.iso, 'no embedded Ignition config');
    io.stdout.write(contents.ignition);
    return 0;
  },
});
