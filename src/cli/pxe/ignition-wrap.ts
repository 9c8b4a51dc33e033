// `bootsmith pxe ignition wrap [-i CONFIG] [-o OUT]`: an Ignition config as an initrd image
// (xz-compressed newc holding config.ign, as coreos-installer writes it) to list after the PXE
// initrd (`initrd=… initrd=ignition.img`, or appended to it). Default output: stdout.
// Does NOT: touch a base initrd.
import { compress } from '../../initrd/compression.js';
import { writeCpio } from '../../initrd/cpio.js';
import { embedMembers } from '../../initrd/embed-archive.js';
import { valueOption } from '../options.js';
import { defineVerb } from '../verb.js';
import { DEFAULT_EMBED_COMPRESSION } from '../iso/iso-edit.js';
import { QUIET } from '../iso/common-options.js';
import { readIgnitionConfig } from '../input/read-input.js';
import { writeArchive } from './write-archive.js';

export const pxeIgnitionWrap = defineVerb({
  name: 'bootsmith pxe ignition wrap',
  summary: 'Wrap an Ignition config in an initrd image',
  options: {
    ignitionFile: valueOption({
      long: 'ignition-file',
      short: 'i',
      value: 'PATH',
      help: 'Ignition config to wrap [default: stdin]',
    }),
    output: valueOption({ long: 'output', short: 'o', value: 'PATH', help: 'write to a file instead of stdout' }),
    quiet: QUIET,
  },
  positionals: {},
  async run({ options }, io) {
    const ignition = await readIgnitionConfig(options.ignitionFile, io.stdin);
    const archive = await compress(writeCpio(embedMembers({ ignition })), DEFAULT_EMBED_COMPRESSION);
    await writeArchive(archive, options.output, io, options.quiet);
    return 0;
  },
});
