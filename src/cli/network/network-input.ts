// The network options `iso network embed` and `pxe network wrap` share: keyfiles (`-k`) or one
// nmstate file (`--nmstate` with `--mac-map`), exactly one of the two kinds.
// Does NOT: embed or wrap anything.
import type { Readable } from 'node:stream';

import type { NetworkKeyfile } from '../../initrd/embed-archive.js';
import { UsageError } from '../args.js';
import { listOption, type OptionValues, valueOption } from '../options.js';
import { readKeyfiles } from '../input/read-keyfiles.js';
import { nmstateKeyfiles } from './nmstate-adapter.js';

export const NETWORK_OPTIONS = {
  keyfile: listOption({ long: 'keyfile', short: 'k', value: 'PATH', help: 'NetworkManager keyfile' }),
  nmstate: valueOption({ long: 'nmstate', value: 'PATH', help: 'nmstate YAML, converted to keyfiles' }),
  macMap: listOption({ long: 'mac-map', value: 'NAME=MAC', help: 'bind interface NAME of the nmstate YAML to a MAC' }),
};

export async function networkKeyfilesFrom(
  options: OptionValues<typeof NETWORK_OPTIONS>,
  stdin: Readable,
  verb: string,
): Promise<NetworkKeyfile[]> {
  const { keyfile: keyfiles, nmstate } = options;
  if (keyfiles.length > 0 === (nmstate !== undefined)) {
    throw new UsageError(`${verb}: give -k KEYFILE… or --nmstate FILE (one of the two)`, `usage: ${verb} --help`);
  }
  if (nmstate !== undefined) return nmstateKeyfiles(nmstate, options.macMap, stdin, verb);
  return readKeyfiles(keyfiles, stdin);
}
