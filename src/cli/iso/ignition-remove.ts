// `bootsmith iso ignition remove [-o OUT] ISO`: removes the embedded Ignition config. Other files
// in the embed area (network keyfiles) stay; when nothing is left the area is zeroed, so an ISO
// that only had a config embedded gets back its original bytes.
// Does NOT: touch kargs (`iso kargs reset` does).
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { argument } from '../options.js';
import { defineVerb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';

export const ignitionRemove = defineVerb({
  name: 'bootsmith iso ignition remove',
  summary: 'Remove an existing embedded Ignition config from an ISO image',
  options: { output: OUTPUT_ISO, quiet: QUIET },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const current = await readEmbedContents(iso);
    const patch = await embedAreaPatch(iso, editEmbedMembers(current, { ignition: null }));
    await writeEditedIso(iso, [patch], { output: options.output, io, quiet: options.quiet });
    return 0;
  },
});
