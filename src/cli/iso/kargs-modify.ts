// `bootsmith iso kargs modify [-a ARG]… [-d ARG]… [-r KEY=OLD=NEW]… [-o OUT] ISO`: edits the kernel
// arguments the ISO currently carries (see ../input/kargs-edit.ts) and writes them to every kargs area.
// Does NOT: change the defaults recorded in coreos/kargs.json (`kargs reset` goes back to them).
import { BadRequestError } from '../../errors.js';
import { argument, listOption } from '../options.js';
import { CliError, defineVerb } from '../verb.js';
import { OUTPUT_ISO, QUIET } from './common-options.js';
import { openLiveIso, writeEditedIso, readCurrentKargs } from './iso-edit.js';
import { applyKargsChanges } from '../input/kargs-edit.js';
import { kargsAreasOf, kargsPatchesFor } from './kargs-write.js';

export const kargsModify = defineVerb({
  name: 'bootsmith iso kargs modify',
  summary: 'Modify kernel args in an ISO image',
  options: {
    append: listOption({ long: 'append', short: 'a', value: 'KARG', help: 'kernel argument to append' }),
    delete: listOption({ long: 'delete', short: 'd', value: 'KARG', help: 'kernel argument to delete' }),
    replace: listOption({ long: 'replace', short: 'r', value: 'KARG=OLD=NEW', help: 'kernel argument to replace' }),
    output: OUTPUT_ISO,
    quiet: QUIET,
  },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    kargsAreasOf(iso); // refuses images without kargs areas
    const current = (await readCurrentKargs(iso))!;
    let kargs: string;
    try {
      kargs = applyKargsChanges(current, { append: options.append, delete: options.delete, replace: options.replace });
    } catch (err) {
      if (err instanceof BadRequestError) throw new CliError(iso.path, err.message);
      throw err;
    }
    await writeEditedIso(iso, kargsPatchesFor(iso, kargs), { output: options.output, io, quiet: options.quiet });
    return 0;
  },
});
