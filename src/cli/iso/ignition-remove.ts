// `bootsmith iso ignition remove [-o OUT] ISO`: removes the embedded Ignition config. Other files
// in the embed area (network keyfiles) stay; when nothing is left the area is zeroed, so an ISO
// that only had a config embedded gets back its original bytes.
// Does NOT: touch kargs (`iso kargs reset` does).
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { flag, optionValue } from '../args.js';
import type { Verb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';

export const ignitionRemove: Verb = {
  spec: {
    name: 'bootsmith iso ignition remove',
    summary: 'Remove an existing embedded Ignition config from an ISO image',
    options: [OUTPUT_ISO, QUIET],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const iso = await openLiveIso(args.positionals[0]!);
    const current = await readEmbedContents(iso);
    const patch = await embedAreaPatch(iso, editEmbedMembers(current, { ignition: null }));
    await writeEditedIso(iso, [patch], { output: optionValue(args, 'output'), io, quiet: flag(args, 'quiet') });
    return 0;
  },
};
