// `bootsmith iso network extract [-C DIR] ISO`: writes the embedded keyfiles into DIR (default:
// prints each one to stdout under a `# name` line). DIR is created when missing, as
// coreos-installer does. Files are created new (0600, never overwriting), as keyfiles may hold
// Wi-Fi or 802.1X secrets.
// Does NOT: interpret keyfiles.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { argument, valueOption } from '../options.js';
import { CliError, defineVerb } from '../verb.js';
import { openLiveIso, readEmbedContents } from './iso-edit.js';

export const networkExtract = defineVerb({
  name: 'bootsmith iso network extract',
  summary: 'Extract embedded network settings from an ISO image',
  options: {
    directory: valueOption({
      long: 'directory',
      short: 'C',
      value: 'DIR',
      help: 'write keyfiles into DIR instead of stdout',
    }),
  },
  positionals: { iso: argument('ISO') },
  async run({ options, positionals }, io) {
    const iso = await openLiveIso(positionals.iso);
    const { networkKeyfiles } = await readEmbedContents(iso);
    if (networkKeyfiles.length === 0) throw new CliError(iso.path, 'no embedded network settings');
    const dir = options.directory;
    if (dir !== undefined)
      await mkdir(dir, { recursive: true }).catch((err: Error) => {
        throw new CliError(dir, err.message, { cause: err });
      });
    for (const k of networkKeyfiles) {
      if (dir === undefined) {
        io.stdout.write(`# ${k.name}\n`);
        io.stdout.write(k.content);
        if (!k.content.toString('utf8').endsWith('\n')) io.stdout.write('\n');
        continue;
      }
      const dest = path.join(dir, k.name);
      await writeFile(dest, k.content, { mode: 0o600, flag: 'wx' }).catch((err: Error) => {
        throw new CliError(dest, err.message, { cause: err });
      });
      io.stdout.write(`${dest}\n`);
    }
    return 0;
  },
});
