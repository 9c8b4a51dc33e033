// `bootsmith iso inspect ISO`: prints the parsed CoreOS live layout (embed area, kargs areas,
// boot files, features) as JSON, plus what the embed area and kargs areas hold now: the member
// names of the embed archive (never their contents) and the current kargs.
// Does NOT: print the Ignition config (`iso ignition show` does).
import type { Verb } from '../verb.js';
import { openLiveIso, readEmbedContents, readCurrentKargs } from './iso-edit.js';

export const inspectIso: Verb = {
  spec: {
    name: 'bootsmith iso inspect',
    summary: 'Print the CoreOS live layout of an ISO image as JSON',
    options: [],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const iso = await openLiveIso(args.positionals[0]!);
    const embed = await readEmbedContents(iso);
    const kargs = await readCurrentKargs(iso);
    const report = {
      ...iso.manifest,
      embedded: { members: embed.members.map((m) => m.path), currentKargs: kargs },
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  },
};
