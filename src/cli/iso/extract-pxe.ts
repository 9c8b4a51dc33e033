// `bootsmith iso extract pxe [-o DIR] ISO`: writes the ISO's kernel, initrd and rootfs as
// `<ISO name without .iso>-vmlinuz`, `-initrd.img` and `-rootfs.img` into DIR (default: the
// current directory; created when missing, as coreos-installer does), as coreos-installer names them. When the ISO carries an embedded Ignition
// config or network keyfiles, they are appended to the initrd (4-byte aligned, the way the service
// builds PXE initrds), so a PXE boot gets the same customisation as the ISO.
// Each file streams from the ISO into a temp file that is renamed when complete.
// Does NOT: extract anything else (use xorriso for arbitrary files).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { compress } from '../../initrd/compression.js';
import { writeCpio } from '../../initrd/cpio.js';
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { buildPxeInitrdTail } from '../../initrd/pxe-initrd.js';
import { BaseFile } from '../../splice/base-file.js';
import { SplicedFile } from '../../splice/spliced-file.js';
import { argument, valueOption } from '../options.js';
import { writeSpliced } from '../output/write-output.js';
import { CliError, defineVerb } from '../verb.js';
import { QUIET } from './common-options.js';
import { DEFAULT_EMBED_COMPRESSION, openLiveIso, readEmbedContents } from './iso-edit.js';

/** The file name stem coreos-installer uses: the ISO's name without a trailing `.iso`. */
export function pxeStem(isoPath: string): string {
  return path.basename(isoPath).replace(/\.iso$/i, '');
}

export const extractPxe = defineVerb({
  name: 'bootsmith iso extract pxe',
  summary: 'Extract PXE files (kernel, initrd, rootfs) from an ISO image',
  options: {
    outputDir: valueOption({ long: 'output-dir', short: 'o', value: 'DIR', help: 'output directory [default: .]' }),
    quiet: QUIET,
  },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const dir = options.outputDir ?? '.';
    const { kernel, initrd, rootfs } = iso.manifest.files;
    if (kernel === undefined || initrd === undefined || rootfs === undefined) {
      throw new CliError(iso.path, 'the image has no images/pxeboot kernel, initrd and rootfs');
    }
    const members = editEmbedMembers(await readEmbedContents(iso), {});
    const tail =
      members.length === 0
        ? []
        : [buildPxeInitrdTail(initrd.length, await compress(writeCpio(members), DEFAULT_EMBED_COMPRESSION)).tail];
    const stem = pxeStem(iso.path);
    await mkdir(dir, { recursive: true }).catch((err: Error) => {
      throw new CliError(dir, err.message, { cause: err });
    });
    const base = await BaseFile.open(iso.path);
    try {
      const outputs: [string, SplicedFile][] = [
        ['vmlinuz', new SplicedFile(base, { window: kernel })],
        ['initrd.img', new SplicedFile(base, { window: initrd, tail })],
        ['rootfs.img', new SplicedFile(base, { window: rootfs })],
      ];
      for (const [name, file] of outputs) {
        const dest = path.join(dir, `${stem}-${name}`);
        await writeSpliced(file, dest, { io, quiet: options.quiet, label: dest });
        io.stdout.write(`${dest}\n`);
      }
    } finally {
      base.close();
    }
    return 0;
  },
});
