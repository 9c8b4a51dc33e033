// `bootsmith iso network remove [-o OUT] ISO`: removes the embedded network keyfiles, keeping the
// Ignition config (the area is zeroed when nothing is left).
// Does NOT: touch kargs.
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { argument } from '../options.js';
import { defineVerb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';

export const networkRemove = defineVerb({
  name: 'bootsmith iso network remove',
  summary: 'Remove existing network settings from an ISO image',
  options: { output: OUTPUT_ISO, quiet: QUIET },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const patch = await embedAreaPatch(iso, editEmbedMembers(await readEmbedContents(iso), { networkKeyfiles: [] }));
    await writeEditedIso(iso, [patch], { output: options.output, io, quiet: options.quiet });
    return 0;
  },
});
