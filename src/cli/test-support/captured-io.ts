// Running the offline verbs in-process with captured output, for tests and the fuzz campaign
// (a child process per case is too slow): stdin from a buffer, stdout/stderr collected.
// `tty` makes stderr claim to be a terminal, so the progress bar path runs.
// Does NOT: run `serve` or the client verbs (they need a service).
import { Readable, Writable } from 'node:stream';

import { ISO_GROUP } from '../iso/iso-command.js';
import { PXE_GROUP } from '../pxe/pxe-command.js';
import { runGroup, type CliIo } from '../verb.js';

export interface CapturedRun {
  code: number;
  stdout: Buffer;
  stderr: string;
}

function collector(chunks: Buffer[], tty: boolean): Writable & { isTTY?: boolean } {
  const w = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      cb();
    },
  }) as Writable & { isTTY?: boolean };
  if (tty) w.isTTY = true;
  return w;
}

/** Runs `bootsmith <argv…>` for the `iso` and `pxe` groups in this process. */
export async function runCaptured(
  argv: readonly string[],
  options: { stdin?: Buffer; tty?: boolean } = {},
): Promise<CapturedRun> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const io: CliIo = {
    env: {},
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout: collector(out, false),
    stderr: collector(err, options.tty === true),
  };
  const [group, ...rest] = argv;
  const code = await runGroup(group === 'pxe' ? PXE_GROUP : ISO_GROUP, rest, io);
  return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') };
}
