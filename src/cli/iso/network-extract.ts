// `bootsmith iso network extract [-C DIR] ISO`: writes the embedded keyfiles into DIR (default:
// prints each one to stdout under a `# name` line). DIR is created when missing, as
// coreos-installer does. Files are created new (0600, never overwriting), as keyfiles may hold
// Wi-Fi or 802.1X secrets.
// Does NOT: interpret keyfiles.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { optionValue } from '../args.js';
import { CliError, type Verb } from '../verb.js';
import { openLiveIso, readEmbedContents } from './iso-edit.js';

export const networkExtract: Verb = {
  spec: {
    name: 'bootsmith iso network extract',
    summary: 'Extract embedded network settings from an ISO image',
    options: [{ long: 'directory', short: 'C', value: 'DIR', help: 'write keyfiles into DIR instead of stdout' }],
    positionals: ['ISO'],
  },
  async run(args, io) {
    const iso = await openLiveIso(args.positionals[0]!);
    const { networkKeyfiles } = await readEmbedContents(iso);
    if (networkKeyfiles.length === 0) throw new CliError(iso.path, 'no embedded network settings');
    const dir = optionValue(args, 'directory');
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
};
