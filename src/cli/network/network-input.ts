// The network options `iso network embed` and `pxe network wrap` share: keyfiles (`-k`) or one
// nmstate file (`--nmstate` with `--mac-map`), exactly one of the two kinds.
// Does NOT: embed or wrap anything.
import type { Readable } from 'node:stream';

import type { NetworkKeyfile } from '../../initrd/embed-archive.js';
import { optionValue, optionValues, UsageError, type OptionSpec, type ParsedArgs } from '../args.js';
import { readKeyfiles } from '../iso/read-keyfiles.js';
import { nmstateKeyfiles } from './nmstate-adapter.js';

export const NETWORK_OPTIONS: OptionSpec[] = [
  { long: 'keyfile', short: 'k', value: 'PATH', repeat: true, help: 'NetworkManager keyfile' },
  { long: 'nmstate', value: 'PATH', help: 'nmstate YAML, converted to keyfiles' },
  { long: 'mac-map', value: 'NAME=MAC', repeat: true, help: 'bind interface NAME of the nmstate YAML to a MAC' },
];

export async function networkKeyfilesFrom(args: ParsedArgs, stdin: Readable, verb: string): Promise<NetworkKeyfile[]> {
  const keyfiles = optionValues(args, 'keyfile');
  const nmstate = optionValue(args, 'nmstate');
  if (keyfiles.length > 0 === (nmstate !== undefined)) {
    throw new UsageError(`${verb}: give -k KEYFILE… or --nmstate FILE (one of the two)`, `usage: ${verb} --help`);
  }
  if (nmstate !== undefined) return nmstateKeyfiles(nmstate, optionValues(args, 'mac-map'), stdin, verb);
  return readKeyfiles(keyfiles, stdin);
}
