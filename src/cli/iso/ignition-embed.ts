// `bootsmith iso ignition embed [-f] [-i CONFIG] [-o OUT] ISO`: puts an Ignition config into the
// ISO's embed area, keeping any network keyfiles or other files already there. Like
// coreos-installer, it refuses to replace an existing config without `-f`, reads stdin without
// `-i`, and edits the ISO in place without `-o`.
// Does NOT: merge configs or check Ignition's schema (Ignition does at boot).
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { flag, optionValue } from '../args.js';
import { CliError, type Verb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';
import { readIgnitionConfig } from './read-input.js';

export const ignitionEmbed: Verb = {
  spec: {
    name: 'bootsmith iso ignition embed',
    summary: 'Embed an Ignition config in an ISO image',
    options: [
      { long: 'force', short: 'f', help: 'overwrite an existing Ignition config' },
      { long: 'ignition-file', short: 'i', value: 'PATH', help: 'Ignition config to embed [default: stdin]' },
      OUTPUT_ISO,
      QUIET,
    ],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const isoPath = args.positionals[0]!;
    const ignition = await readIgnitionConfig(optionValue(args, 'ignition-file'), io.stdin);
    const iso = await openLiveIso(isoPath);
    const current = await readEmbedContents(iso);
    if (current.ignition !== undefined && !flag(args, 'force')) {
      throw new CliError(isoPath, 'this ISO image already has an embedded Ignition config; use -f to force');
    }
    const patch = await embedAreaPatch(iso, editEmbedMembers(current, { ignition }));
    await writeEditedIso(iso, [patch], { output: optionValue(args, 'output'), io, quiet: flag(args, 'quiet') });
    return 0;
  },
};
