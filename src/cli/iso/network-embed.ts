// `bootsmith iso network embed -k KEYFILE… [-f] [-o OUT] ISO`: puts NetworkManager keyfiles into
// the ISO's embed area beside the Ignition config (etc/coreos-firstboot-network/, where the live
// initramfs applies them, as coreos-installer's `iso network embed` does). Existing keyfiles are
// replaced only with `-f`.
// `--nmstate FILE --mac-map NAME=MAC…` converts nmstate YAML instead (src/cli/network/nmstate-adapter.ts).
// Does NOT: check that the keyfiles make sense (NetworkManager does at boot).
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { argument, flagOption } from '../options.js';
import { CliError, defineVerb } from '../verb.js';
import { NETWORK_OPTIONS, networkKeyfilesFrom } from '../network/network-input.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';

export const networkEmbed = defineVerb({
  name: 'bootsmith iso network embed',
  summary: 'Embed network settings (NetworkManager keyfiles) in an ISO image',
  options: {
    ...NETWORK_OPTIONS,
    force: flagOption({ long: 'force', short: 'f', help: 'overwrite existing network settings' }),
    output: OUTPUT_ISO,
    quiet: QUIET,
  },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const keyfiles = await networkKeyfilesFrom(options, io.stdin, 'bootsmith iso network embed');
    const iso = await openLiveIso(positionals.iso);
    const current = await readEmbedContents(iso);
    if (current.networkKeyfiles.length > 0 && !options.force) {
      throw new CliError(iso.path, 'this ISO image already has embedded network settings; use -f to force');
    }
    const patch = await embedAreaPatch(iso, editEmbedMembers(current, { networkKeyfiles: keyfiles }));
    await writeEditedIso(iso, [patch], { output: options.output, io, quiet: options.quiet });
    return 0;
  },
});
