// `bootsmith iso kargs modify [-a ARG]… [-d ARG]… [-r KEY=OLD=NEW]… [-o OUT] ISO`: edits the kernel
// arguments the ISO currently carries (see kargs-edit.ts) and writes them to every kargs area.
// Does NOT: change the defaults recorded in coreos/kargs.json (`kargs reset` goes back to them).
import { BadRequestError } from '../../errors.js';
import { flag, optionValue, optionValues } from '../args.js';
import { CliError, type Verb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { openLiveIso, writeEditedIso, readCurrentKargs } from './iso-edit.js';
import { applyKargsChanges } from './kargs-edit.js';
import { kargsAreasOf, kargsPatchesFor } from './kargs-write.js';

export const kargsModify: Verb = {
  spec: {
    name: 'bootsmith iso kargs modify',
    summary: 'Modify kernel args in an ISO image',
    options: [
      { long: 'append', short: 'a', value: 'KARG', repeat: true, help: 'kernel argument to append' },
      { long: 'delete', short: 'd', value: 'KARG', repeat: true, help: 'kernel argument to delete' },
      { long: 'replace', short: 'r', value: 'KARG=OLD=NEW', repeat: true, help: 'kernel argument to replace' },
      OUTPUT_ISO,
      QUIET,
    ],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const iso = await openLiveIso(args.positionals[0]!);
    kargsAreasOf(iso); // refuses images without kargs areas
    const current = (await readCurrentKargs(iso))!;
    let kargs: string;
    try {
      kargs = applyKargsChanges(current, {
        append: optionValues(args, 'append'),
        delete: optionValues(args, 'delete'),
        replace: optionValues(args, 'replace'),
      });
    } catch (err) {
      if (err instanceof BadRequestError) throw new CliError(iso.path, err.message);
      throw err;
    }
    await writeEditedIso(iso, kargsPatchesFor(iso, kargs), {
      output: optionValue(args, 'output'),
      io,
      quiet: flag(args, 'quiet'),
    });
    return 0;
  },
};
