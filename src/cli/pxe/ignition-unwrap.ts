// `bootsmith pxe ignition unwrap [IMAGE]`: prints the Ignition config (config.ign) held by an
// initrd image: a wrapped config, or a whole PXE initrd with one appended (the last copy wins, as
// when the kernel unpacks it). IMAGE `-` or none reads stdin. The image is read into memory, so
// it is bounded (MAX_INITRD_BYTES), and so is what it expands to (MAX_INITRD_DECOMPRESSED_BYTES).
// Does NOT: read ISOs (`iso ignition show` does).
import { readFile, stat } from 'node:fs/promises';

import { describeError, withContext } from '../../errors.js';
import { readEmbedArea } from '../../initrd/embed-archive.js';
import { optionalArgument } from '../options.js';
import { CliError, defineVerb } from '../verb.js';

/** CoreOS PXE initrds are ~100 MiB; anything much larger is not an initrd. */
export const MAX_INITRD_BYTES = 512 * 1024 * 1024;
/** What all of its compressed archives may expand to together (CoreOS initrds: ~250 MiB). */
export const MAX_INITRD_DECOMPRESSED_BYTES = 1024 * 1024 * 1024;

export async function readImage(
  file: string | undefined,
  stdin: NodeJS.ReadableStream,
): Promise<{ name: string; bytes: Buffer }> {
  if (file === undefined || file === '-') {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of stdin) {
      total += (chunk as Buffer).length;
      if (total > MAX_INITRD_BYTES) throw new CliError('stdin', `more than ${MAX_INITRD_BYTES} bytes; not an initrd`);
      chunks.push(chunk as Buffer);
    }
    return { name: 'stdin', bytes: Buffer.concat(chunks) };
  }
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(file, 'not a regular file');
    if (info.size > MAX_INITRD_BYTES)
      throw new CliError(file, `${info.size} bytes is more than the ${MAX_INITRD_BYTES}-byte limit for an initrd`);
    return { name: file, bytes: await readFile(file) };
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(file, describeError(err), { cause: err });
  }
}

export const pxeIgnitionUnwrap = defineVerb({
  name: 'bootsmith pxe ignition unwrap',
  summary: 'Show the wrapped Ignition config in an initrd image',
  options: {},
  positionals: { image: optionalArgument('IMAGE') },
  async run({ positionals }, io) {
    const { name, bytes } = await readImage(positionals.image, io.stdin);
    const { ignition } = await withContext(
      'not an initrd image',
      () => readEmbedArea(bytes, MAX_INITRD_DECOMPRESSED_BYTES),
      (message, cause) => new CliError(name, message, { cause }),
    );
    if (ignition === undefined) throw new CliError(name, 'no wrapped Ignition config');
    io.stdout.write(ignition);
    return 0;
  },
});
