// `bootsmith iso customize [--live-ignition CONFIG] [--live-karg-append ARG]… [--live-karg-delete
// ARG]… [--live-karg-replace KARG=OLD=NEW]… [--network-keyfile FILE]… [-f] -o OUT ISO`: the
// embed and kargs edits in one pass, written to a new file (or `-`): the Ignition config and the
// keyfiles go into one embed archive, the kargs into every kargs area. A customised input is
// refused unless `-f`, like coreos-installer (which only customises pristine images).
// Does NOT: the installer options of coreos-installer's customize (`--dest-ignition`,
// `--dest-device`, `--dest-karg-*`, `--pre-install`/`--post-install`): those configure the
// installer run by the live system, which bootsmith's embed archive does not set up yet.
import { editEmbedMembers } from '../../initrd/embed-edit.js';
import { BadRequestError } from '../../errors.js';
import { readEmbeddedKargs } from '../../iso/read-embed-areas.js';
import type { Patch } from '../../splice/spliced-file.js';
import { flag, optionValue, optionValues, UsageError } from '../args.js';
import { CliError, type Verb } from '../verb.js';
import { QUIET } from './common-options.js';
import { embedAreaPatch, openLiveIso, readEmbedContents, writeEditedIso } from './iso-edit.js';
import { applyKargsChanges } from './kargs-edit.js';
import { kargsAreasOf, kargsPatchesFor } from './kargs-write.js';
import { readIgnitionConfig } from './read-input.js';
import { readKeyfiles } from './read-keyfiles.js';

export const customizeIso: Verb = {
  spec: {
    name: 'bootsmith iso customize',
    summary: 'Customize a CoreOS live ISO image (Ignition, kargs, network) in one pass',
    options: [
      { long: 'live-ignition', value: 'PATH', help: 'Ignition config for the live system' },
      { long: 'live-karg-append', value: 'KARG', repeat: true, help: 'kernel argument to append for the live system' },
      { long: 'live-karg-delete', value: 'KARG', repeat: true, help: 'kernel argument to delete for the live system' },
      {
        long: 'live-karg-replace',
        value: 'KARG=OLD=NEW',
        repeat: true,
        help: 'kernel argument to replace for the live system',
      },
      { long: 'network-keyfile', value: 'PATH', repeat: true, help: 'NetworkManager keyfile for the live system' },
      { long: 'force', short: 'f', help: 'customise an ISO that already carries customisations' },
      { long: 'output', short: 'o', value: 'PATH', help: 'output ISO (`-` for stdout); required' },
      QUIET,
    ],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const output = optionValue(args, 'output');
    if (output === undefined)
      throw new UsageError('bootsmith iso customize: -o/--output is required', 'usage: bootsmith iso customize --help');
    const ignitionFile = optionValue(args, 'live-ignition');
    const ignition = ignitionFile === undefined ? undefined : await readIgnitionConfig(ignitionFile, io.stdin);
    const keyfileNames = optionValues(args, 'network-keyfile');
    const keyfiles = keyfileNames.length === 0 ? undefined : await readKeyfiles(keyfileNames, io.stdin);
    const kargChanges = {
      append: optionValues(args, 'live-karg-append'),
      delete: optionValues(args, 'live-karg-delete'),
      replace: optionValues(args, 'live-karg-replace'),
    };
    const editKargs = kargChanges.append.length + kargChanges.delete.length + kargChanges.replace.length > 0;
    const iso = await openLiveIso(args.positionals[0]!);
    const current = await readEmbedContents(iso);
    const currentKargs = iso.manifest.kargs === undefined ? undefined : await readEmbeddedKargs(iso.path, iso.manifest);
    const customised =
      current.members.length > 0 || (currentKargs !== undefined && currentKargs !== iso.manifest.kargs?.default);
    if (customised && !flag(args, 'force'))
      throw new CliError(iso.path, 'this ISO image already carries customisations; use -f to customise it anyway');
    const patches: Patch[] = [];
    if (ignition !== undefined || keyfiles !== undefined) {
      const edit = {
        ...(ignition !== undefined ? { ignition } : {}),
        ...(keyfiles !== undefined ? { networkKeyfiles: keyfiles } : {}),
      };
      patches.push(await embedAreaPatch(iso, editEmbedMembers(current, edit)));
    }
    if (editKargs) {
      const base = await readEmbeddedKargs(iso.path, { kargs: kargsAreasOf(iso) });
      let kargs: string;
      try {
        kargs = applyKargsChanges(base, kargChanges);
      } catch (err) {
        if (err instanceof BadRequestError) throw new CliError(iso.path, err.message);
        throw err;
      }
      patches.push(...kargsPatchesFor(iso, kargs));
    }
    await writeEditedIso(iso, patches, { output, io, quiet: flag(args, 'quiet') });
    return 0;
  },
};
