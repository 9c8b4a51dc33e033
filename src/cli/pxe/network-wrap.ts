// `bootsmith pxe network wrap -k KEYFILE… [-o OUT]`: NetworkManager keyfiles as an initrd image
// (xz newc under etc/coreos-firstboot-network/) to list after the PXE initrd. Default: stdout.
// Does NOT: convert nmstate.
import { compress } from '../../initrd/compression.js';
import { writeCpio } from '../../initrd/cpio.js';
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { flag, optionValue, optionValues, UsageError } from '../args.js';
import type { Verb } from '../verb.js';
import { QUIET } from '../iso/common-options.js';
import { DEFAULT_EMBED_COMPRESSION } from '../iso/iso-edit.js';
import { readKeyfiles } from '../iso/read-keyfiles.js';
import { writeArchive } from './write-archive.js';

export const pxeNetworkWrap: Verb = {
  spec: {
    name: 'bootsmith pxe network wrap',
    summary: 'Wrap network settings (NetworkManager keyfiles) in an initrd image',
    options: [
      { long: 'keyfile', short: 'k', value: 'PATH', repeat: true, help: 'NetworkManager keyfile to wrap' },
      { long: 'output', short: 'o', value: 'PATH', help: 'write to a file instead of stdout' },
      QUIET,
    ],
    positionals: [],
  },
  async run(args, io) {
    const files = optionValues(args, 'keyfile');
    if (files.length === 0)
      throw new UsageError(
        'bootsmith pxe network wrap: at least one -k KEYFILE is required',
        'usage: bootsmith pxe network wrap --help',
      );
    const members = editEmbedMembers({ members: [] }, { networkKeyfiles: await readKeyfiles(files, io.stdin) });
    const archive = await compress(writeCpio(members), DEFAULT_EMBED_COMPRESSION);
    await writeArchive(archive, optionValue(args, 'output'), io, flag(args, 'quiet'));
    return 0;
  },
};
