// `bootsmith iso extract minimal-iso [--rootfs-url URL] ISO [OUT]`: rebuilds the byte-exact
// minimal ISO from the full ISO's coreos/miniso.dat (its SHA-256 verified, src/iso/miniso). With
// `--rootfs-url`, `coreos.liveiso=` is dropped and `coreos.live.rootfs_url=URL` added in every
// kargs area and in coreos/kargs.json, as coreos-installer does. OUT `-` (the default) is stdout.
// The rebuild goes to a temp file beside OUT (in the system temp directory for stdout), edited
// there, then renamed (or streamed and removed). The rebuild shows progress like every writing verb
// (its size from miniso.dat's xz index; src/cli/output/progress-meter.ts), on stderr.
// Does NOT: accept a customised full ISO (the rebuild refuses it, like coreos-installer).
import { rm } from 'node:fs/promises';
import { rename } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { withIsoFs } from '../../iso/iso9660.js';
import { parseLiveIso } from '../../iso/live-layout.js';
import { rebuildMinimalIso } from '../../iso/miniso/miniso.js';
import { minimalKargsPatches, planMinimalKargs } from '../../iso/minimal-kargs-patches.js';
import { argument, optionalArgument, valueOption } from '../options.js';
import { patchInPlace, STDOUT_NAME, tempPathFor, writeOutput } from '../output/write-output.js';
import { ProgressMeter } from '../output/progress-meter.js';
import { CliError, defineVerb } from '../verb.js';
import { QUIET } from './common-options.js';
import { openLiveIso } from './iso-edit.js';

export const extractMinimalIso = defineVerb({
  name: 'bootsmith iso extract minimal-iso',
  summary: 'Extract a minimal ISO from a CoreOS live ISO image',
  options: {
    rootfsUrl: valueOption({ long: 'rootfs-url', value: 'URL', help: 'inject rootfs URL karg into minimal ISO' }),
    quiet: QUIET,
  },
  positionals: { iso: argument('ISO'), output: optionalArgument('OUTPUT') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    if (iso.manifest.files.minisoData === undefined) {
      throw new CliError(iso.path, 'the image has no coreos/miniso.dat, so it cannot make a minimal ISO');
    }
    const out = positionals.output ?? STDOUT_NAME;
    if (out === '') throw new CliError(out, 'empty output file name');
    const tmp = tempPathFor(out === STDOUT_NAME ? path.join(os.tmpdir(), 'bootsmith-minimal.iso') : out);
    try {
      const quiet = options.quiet;
      let meter: ProgressMeter | undefined;
      const progress = {
        start: (total: number | undefined): void => {
          meter = new ProgressMeter(out === STDOUT_NAME ? 'minimal ISO' : out, total ?? 0, {
            quiet,
            stderr: io.stderr,
          });
        },
        add: (bytes: number): void => meter?.add(bytes),
      };
      const { size } = await rebuildMinimalIso(iso.path, iso.manifest, tmp, { progress });
      meter?.finish();
      const rootfsUrl = options.rootfsUrl;
      if (rootfsUrl !== undefined) {
        const manifest = await parseLiveIso(tmp);
        const plan = await withIsoFs(tmp, (fs) => planMinimalKargs(fs, manifest, rootfsUrl));
        await patchInPlace(tmp, size, minimalKargsPatches(plan));
      }
      if (out === STDOUT_NAME) {
        await writeOutput(createReadStream(tmp), size, out, { io, quiet, label: 'stdout' });
      } else {
        await rename(tmp, out);
      }
    } finally {
      await rm(tmp, { force: true });
    }
    return 0;
  },
});
