// `bootsmith pxe network wrap -k KEYFILE… [-o OUT]`: NetworkManager keyfiles as an initrd image (xz
// newc under etc/coreos-firstboot-network/) to list after the PXE initrd. Default: stdout.
// `--nmstate FILE --mac-map NAME=MAC…` converts nmstate YAML instead (src/cli/network/nmstate-adapter.ts).
// Does NOT: touch a base initrd.
import { compress } from '../../initrd/compression.js';
import { writeCpio } from '../../initrd/cpio.js';
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { valueOption } from '../options.js';
import { defineVerb } from '../verb.js';
import { NETWORK_OPTIONS, networkKeyfilesFrom } from '../network/network-input.js';
import { QUIET } from '../iso/common-options.js';
import { DEFAULT_EMBED_COMPRESSION } from '../iso/iso-edit.js';
import { writeArchive } from './write-archive.js';

export const pxeNetworkWrap = defineVerb({
  name: 'bootsmith pxe network wrap',
  summary: 'Wrap network settings (NetworkManager keyfiles) in an initrd image',
  options: {
    ...NETWORK_OPTIONS,
    output: valueOption({ long: 'output', short: 'o', value: 'PATH', help: 'write to a file instead of stdout' }),
    quiet: QUIET,
  },
  positionals: {},
  async run({ options }, io) {
    const members = editEmbedMembers(
      { members: [] },
      { networkKeyfiles: await networkKeyfilesFrom(options, io.stdin, 'bootsmith pxe network wrap') },
    );
    const archive = await compress(writeCpio(members), DEFAULT_EMBED_COMPRESSION);
    await writeArchive(archive, options.output, io, options.quiet);
    return 0;
  },
});
