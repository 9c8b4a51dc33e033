// `bootsmith iso customize [OPTIONS] [-f] [-o OUT] ISO`: coreos-installer's one-shot
// customisation. The installer options (`--dest-ignition`, `--dest-device`, `--dest-console`,
// `--dest-karg-*`, `--pre-install`, `--post-install`, `--installer-config`, `--ignition-ca`), the
// network options and `--live-ignition` become one live Ignition config plus keyfiles
// (src/cli/customize/), written as a fresh embed archive; `--live-karg-*` edit the default kernel
// arguments into every kargs area. Without `-o` the ISO is edited in place (only the embed and
// kargs areas are written). A customised input is refused unless `-f`; with `-f` its old
// customisations are replaced, as coreos-installer does. Everything is read and checked before
// the first byte is written.
// Does NOT: run the installer (the live system does) or keep files of an earlier customisation.
import { BadRequestError } from '../../errors.js';
import type { Patch } from '../../splice/spliced-file.js';
import { argument, flagOption, listOption, valueOption } from '../options.js';
import { CUSTOMIZE_OPTIONS, readCustomizeInputs } from '../customize/customize-inputs.js';
import { planCustomization } from '../customize/customize-plan.js';
import { CliError, defineVerb } from '../verb.js';
import { QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso, readCurrentKargs } from './iso-edit.js';
import { applyKargsChanges } from '../input/kargs-edit.js';
import { kargsAreasOf, kargsPatchesFor } from './kargs-write.js';

const VERB = 'bootsmith iso customize';

export const customizeIso = defineVerb({
  name: VERB,
  summary: 'Customize a CoreOS live ISO image (installer, Ignition, kargs, network) in one pass',
  options: {
    ...CUSTOMIZE_OPTIONS,
    liveKargAppend: listOption({
      long: 'live-karg-append',
      value: 'KARG',
      help: 'kernel argument to append for the live system',
    }),
    liveKargDelete: listOption({
      long: 'live-karg-delete',
      value: 'KARG',
      help: 'kernel argument to delete for the live system',
    }),
    liveKargReplace: listOption({
      long: 'live-karg-replace',
      value: 'KARG=OLD=NEW',
      help: 'kernel argument to replace for the live system',
    }),
    force: flagOption({ long: 'force', short: 'f', help: 'overwrite existing customisations' }),
    output: valueOption({
      long: 'output',
      short: 'o',
      value: 'PATH',
      help: 'write the ISO to a new file (`-` for stdout) instead of in place',
    }),
    quiet: QUIET,
  },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const inputs = await readCustomizeInputs(options, io.stdin, VERB);
    const kargChanges = {
      append: options.liveKargAppend,
      delete: options.liveKargDelete,
      replace: options.liveKargReplace,
    };
    const editKargs = kargChanges.append.length + kargChanges.delete.length + kargChanges.replace.length > 0;
    const iso = await openLiveIso(positionals.iso);
    const current = await readEmbedContents(iso);
    const currentKargs = await readCurrentKargs(iso);
    const customised =
      current.members.length > 0 || (currentKargs !== undefined && currentKargs !== iso.manifest.kargs?.default);
    if (customised && !options.force)
      throw new CliError(iso.path, 'this ISO image is already customized; use -f to force');
    const plan = planCustomization(inputs, iso.manifest.features, iso.path);
    const patches: Patch[] = [await embedAreaPatch(iso, plan.members)];
    if (editKargs) {
      if (iso.manifest.kargs === undefined)
        throw new CliError(iso.path, 'this OS image does not support customizing live kernel arguments');
      let kargs: string;
      try {
        kargs = applyKargsChanges(kargsAreasOf(iso).default, kargChanges);
      } catch (err) {
        if (err instanceof BadRequestError) throw new CliError(iso.path, err.message);
        throw err;
      }
      patches.push(...kargsPatchesFor(iso, kargs));
    }
    const quiet = options.quiet;
    if (!quiet) for (const note of plan.notes) io.stderr.write(`${note}\n`);
    await writeEditedIso(iso, patches, { output: options.output, io, quiet });
    return 0;
  },
});
