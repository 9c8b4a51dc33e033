// Reading NetworkManager keyfiles given with `-k/--keyfile` (or `--network-keyfile`): each file's
// name becomes the keyfile name (src/initrd/embed-archive.ts checks it and adds `.nmconnection`).
// Does NOT: parse keyfiles (NetworkManager does at boot).
import path from 'node:path';
import type { Readable } from 'node:stream';

import type { NetworkKeyfile } from '../../initrd/embed-archive.js';
import { readInput } from './read-input.js';

export async function readKeyfiles(files: readonly string[], stdin: Readable): Promise<NetworkKeyfile[]> {
  const out: NetworkKeyfile[] = [];
  for (const file of files) {
    const { bytes } = await readInput(file, stdin);
    out.push({ name: path.basename(file), content: bytes });
  }
  return out;
}
