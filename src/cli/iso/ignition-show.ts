// `bootsmith iso ignition show ISO`: prints the embedded Ignition config as stored. An ISO
// without one is an error (exit 1), as with coreos-installer.
// Does NOT: pretty-print or validate the config.
import { type Verb, CliError } from '../verb.js';
import { openLiveIso, readEmbedContents } from './iso-edit.js';

export const ignitionShow: Verb = {
  spec: {
    name: 'bootsmith iso ignition show',
    summary: 'Show the embedded Ignition config from an ISO image',
    options: [],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const isoPath = args.positionals[0]!;
    const contents = await readEmbedContents(await openLiveIso(isoPath));
    if (contents.ignition === undefined) throw new CliError(isoPath, 'no embedded Ignition config');
    io.stdout.write(contents.ignition);
    return 0;
  },
};
