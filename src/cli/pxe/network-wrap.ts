// `bootsmith pxe network wrap -k KEYFILE… [-o OUT]`: NetworkManager keyfiles as an initrd image (xz
// newc under etc/coreos-firstboot-network/) to list after the PXE initrd. Default: stdout.
// `--nmstate FILE --mac-map NAME=MAC…` converts nmstate YAML instead (src/cli/network/nmstate-adapter.ts).
// Does NOT: touch a base initrd.
import { compress } from '../../initrd/compression.js';
import { writeCpio } from '../../initrd/cpio.js';
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { flag, optionValue } from '../args.js';
import type { Verb } from '../verb.js';
import { NETWORK_OPTIONS, networkKeyfilesFrom } from '../network/network-input.js';
import { QUIET } from '../iso/common-options.js';
import { DEFAULT_EMBED_COMPRESSION } from '../iso/iso-edit.js';
import { writeArchive } from './write-archive.js';

export const pxeNetworkWrap: Verb = {
  spec: {
    name: 'bootsmith pxe network wrap',
    summary: 'Wrap network settings (NetworkManager keyfiles) in an initrd image',
    options: [
      ...NETWORK_OPTIONS,
      { long: 'output', short: 'o', value: 'PATH', help: 'write to a file instead of stdout' },
      QUIET,
    ],
    positionals: [],
  },
  async run(args, io) {
    const members = editEmbedMembers(
      { members: [] },
      { networkKeyfiles: await networkKeyfilesFrom(args, io.stdin, 'bootsmith pxe network wrap') },
    );
    const archive = await compress(writeCpio(members), DEFAULT_EMBED_COMPRESSION);
    await writeArchive(archive, optionValue(args, 'output'), io, flag(args, 'quiet'));
    return 0;
  },
};
