// Reading a small input file a verb takes (an Ignition config, a keyfile), or stdin for `-` and
// when no file is given, with a size bound so a wrong path (a device, an ISO) fails fast.
// Does NOT: interpret the contents beyond "is it a JSON object" for Ignition configs.
import { readFile, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';

import { describeError, withContext } from '../../errors.js';
import { CliError } from '../verb.js';

/** Larger than any embed area (256 KiB on x86_64) compresses to; bigger inputs are mistakes. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

async function readStdin(stdin: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin) {
    total += (chunk as Buffer).length;
    if (total > MAX_INPUT_BYTES) throw new CliError('stdin', `more than ${MAX_INPUT_BYTES} bytes; not a config file`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The bytes of `file`, or of stdin when `file` is undefined or `-`. */
export async function readInput(file: string | undefined, stdin: Readable): Promise<{ name: string; bytes: Buffer }> {
  if (file === undefined || file === '-') return { name: 'stdin', bytes: await readStdin(stdin) };
  if (file === '') throw new CliError(file, 'empty file name');
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(file, 'not a regular file');
    if (info.size > MAX_INPUT_BYTES)
      throw new CliError(file, `${info.size} bytes is more than the ${MAX_INPUT_BYTES}-byte limit for a config file`);
    return { name: file, bytes: await readFile(file) };
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(file, describeError(err).replace(/^[A-Z]+: /, ''), { cause: err });
  }
}

/** An Ignition config: must be a JSON object (Ignition itself checks the rest at boot). */
export async function readIgnitionConfig(file: string | undefined, stdin: Readable): Promise<Buffer> {
  const { name, bytes } = await readInput(file, stdin);
  parseIgnitionObject(name, bytes);
  return bytes;
}

/** The JSON object of an Ignition config's bytes; a CliError naming `name` when it is not one. */
export function parseIgnitionObject(name: string, bytes: Buffer): Record<string, unknown> {
  const parsed: unknown = withContext(
    'not a valid Ignition config',
    () => JSON.parse(bytes.toString('utf8')),
    (message, cause) => new CliError(name, message, { cause }),
  );
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError(name, 'not a valid Ignition config: the top level is not a JSON object');
  }
  return parsed as Record<string, unknown>;
}
