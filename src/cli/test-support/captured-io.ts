// Running the offline verbs in-process with captured output, for tests and the fuzz campaign
// (a child process per case is too slow): stdin from a buffer, stdout/stderr collected.
// `tty` makes stderr claim to be a terminal, so the progress bar path runs. `runCliCaptured`
// runs any command line through the whole command tree (src/cli/commands.ts), as main.ts does.
// Does NOT: provide a service for `serve` or the client verbs to talk to.
import { Readable, Writable } from 'node:stream';

import { runCli } from '../commands.js';
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

function capturedIo(options: { stdin?: Buffer; tty?: boolean; env?: NodeJS.ProcessEnv }): {
  io: CliIo;
  result(code: number): CapturedRun;
} {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  return {
    io: {
      env: options.env ?? {},
      stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
      stdout: collector(out, false),
      stderr: collector(err, options.tty === true),
    },
    result: (code) => ({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
  };
}

/** Runs `bootsmith <argv…>` for the `iso` and `pxe` groups in this process. */
export async function runCaptured(
  argv: readonly string[],
  options: { stdin?: Buffer; tty?: boolean } = {},
): Promise<CapturedRun> {
  const { io, result } = capturedIo(options);
  const [group, ...rest] = argv;
  return result(await runGroup(group === 'pxe' ? PXE_GROUP : ISO_GROUP, rest, io));
}

/** Runs any `bootsmith <argv…>` through the whole command tree in this process (environment `env`). */
export async function runCliCaptured(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CapturedRun> {
  const { io, result } = capturedIo({ env });
  return result(await runCli(argv, io));
}
