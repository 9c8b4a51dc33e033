// `bootsmith iso network remove [-o OUT] ISO`: removes the embedded network keyfiles, keeping the
// Ignition config (the area is zeroed when nothing is left).
// Does NOT: touch kargs.
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { flag, optionValue } from '../args.js';
import type { Verb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';

export const networkRemove: Verb = {
  spec: {
    name: 'bootsmith iso network remove',
    summary: 'Remove existing network settings from an ISO image',
    options: [OUTPUT_ISO, QUIET],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const iso = await openLiveIso(args.positionals[0]!);
    const patch = await embedAreaPatch(iso, editEmbedMembers(await readEmbedContents(iso), { networkKeyfiles: [] }));
    await writeEditedIso(iso, [patch], { output: optionValue(args, 'output'), io, quiet: flag(args, 'quiet') });
    return 0;
  },
};
