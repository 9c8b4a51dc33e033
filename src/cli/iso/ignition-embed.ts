// `bootsmith iso ignition embed [-f] [-i CONFIG] [-o OUT] ISO`: puts an Ignition config into the
// ISO's embed area, keeping any network keyfiles or other files already there. Like
// coreos-installer, it refuses to replace an existing config without `-f`, reads stdin without
// `-i`, and edits the ISO in place without `-o`.
// Does NOT: merge configs or check Ignition's schema (Ignition does at boot).
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { argument, flagOption, valueOption } from '../options.js';
import { CliError, defineVerb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';
import { readIgnitionConfig } from '../input/read-input.js';

export const ignitionEmbed = defineVerb({
  name: 'bootsmith iso ignition embed',
  summary: 'Embed an Ignition config in an ISO image',
  options: {
    force: flagOption({ long: 'force', short: 'f', help: 'overwrite an existing Ignition config' }),
    ignitionFile: valueOption({
      long: 'ignition-file',
      short: 'i',
      value: 'PATH',
      help: 'Ignition config to embed [default: stdin]',
    }),
    output: OUTPUT_ISO,
    quiet: QUIET,
  },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const ignition = await readIgnitionConfig(options.ignitionFile, io.stdin);
    const iso = await openLiveIso(positionals.iso);
    const current = await readEmbedContents(iso);
    if (current.ignition !== undefined && !options.force) {
      throw new CliError(positionals.iso, 'this ISO image already has an embedded Ignition config; use -f to force');
    }
    const patch = await embedAreaPatch(iso, editEmbedMembers(current, { ignition }));
    await writeEditedIso(iso, [patch], { output: options.output, io, quiet: options.quiet });
    return 0;
  },
});
