// Writing a small initrd archive (the output of the `pxe … wrap` verbs) to a file or stdout: the
// archive is built in memory (it is bounded by its inputs) and written like every other output.
// Does NOT: build the archive.
import { Readable } from 'node:stream';

import { writeOutput, STDOUT_NAME } from '../output/write-output.js';
import type { CliIo } from '../verb.js';

export async function writeArchive(
  archive: Buffer,
  dest: string | undefined,
  io: CliIo,
  quiet: boolean,
): Promise<void> {
  const target = dest ?? STDOUT_NAME;
  await writeOutput(Readable.from([archive]), archive.length, target, {
    io,
    quiet: quiet || target === STDOUT_NAME,
    label: target,
  });
}
