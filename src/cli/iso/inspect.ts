// `bootsmith iso inspect ISO`: prints the parsed CoreOS live layout (embed area, kargs areas,
// boot files, features) as JSON, plus what the embed area and kargs areas hold now: the member
// names of the embed archive (never their contents) and the current kargs.
// Does NOT: print the Ignition config (`iso ignition show` does).
import { argument } from '../options.js';
import { defineVerb } from '../verb.js';
import { openLiveIso, readEmbedContents, readCurrentKargs } from './iso-edit.js';

export const inspectIso = defineVerb({
  name: 'bootsmith iso inspect',
  summary: 'Print the CoreOS live layout of an ISO image as JSON',
  options: {},
  positionals: { iso: argument('ISO') },
  async run({ positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const embed = await readEmbedContents(iso);
    const kargs = await readCurrentKargs(iso);
    const report = {
      ...iso.manifest,
      embedded: { members: embed.members.map((m) => m.path), currentKargs: kargs },
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  },
});
