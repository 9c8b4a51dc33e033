// Where an offline verb's output goes, written the same way by every verb:
// - a new file: streamed into a temp file in the destination's directory, fsynced, then renamed
//   over the destination, so a reader never sees half an ISO and a failure leaves nothing behind;
// - `-`: streamed to stdout;
// - in place (an ISO edited without `-o`): only the embed/kargs areas are rewritten, with
//   positional writes into the existing file, as coreos-installer does. Every area's bytes are
//   computed and checked before the first write, so a refusal changes nothing; the areas are at
//   most a few hundred KiB, and the file is fsynced afterwards. The target may be a block device
//   (its size from src/cli/input/image-size.ts).
// Memory is one reused 1 MiB buffer (writeSpliced) whatever the size of the input.
// Does NOT: compute patches (the verbs do), or parse ISOs.
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

import { withContext } from '../../errors.js';
import type { Patch, SplicedFile } from '../../splice/spliced-file.js';
import { imageSize } from '../input/image-size.js';
import { CliError, type CliIo } from '../verb.js';
import { ProgressMeter } from './progress-meter.js';

export const STDOUT_NAME = '-';

/** A temp file name beside `dest`: same directory (so rename is atomic), hidden, unique. */
export function tempPathFor(dest: string): string {
  return path.join(path.dirname(dest), `.${path.basename(dest)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

async function writeAll(fh: FileHandle, chunk: Buffer, position?: number): Promise<void> {
  for (let done = 0; done < chunk.length;) {
    const { bytesWritten } = await fh.write(
      chunk,
      done,
      chunk.length - done,
      position === undefined ? null : position + done,
    );
    done += bytesWritten;
  }
}

/** Writes one chunk to stdout and waits until it is handed on, so the caller may reuse the buffer. */
async function toStdout(io: CliIo, chunk: Buffer): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    io.stdout.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

export interface OutputOptions {
  io: CliIo;
  quiet: boolean;
  /** Shown before the progress bar, e.g. the output's name. */
  label: string;
  /** File mode of a new output file. */
  mode?: number;
}

/**
 * Writes `source` (`size` bytes) to `dest` (a path, or `-` for stdout) as the header describes.
 * Returns the number of bytes written.
 */
export async function writeOutput(
  source: AsyncIterable<Buffer>,
  size: number,
  dest: string,
  options: OutputOptions,
): Promise<number> {
  // An empty name would put the temp file in the current directory and fail only at the rename.
  if (dest === '') throw new CliError(dest, 'empty output file name');
  const meter = new ProgressMeter(options.label, size, { quiet: options.quiet, stderr: options.io.stderr });
  let written = 0;
  if (dest === STDOUT_NAME) {
    for await (const chunk of source) {
      await toStdout(options.io, chunk);
      written += chunk.length;
      meter.add(chunk.length);
    }
    meter.finish();
    return written;
  }
  const tmp = tempPathFor(dest);
  let fh: FileHandle | undefined;
  try {
    fh = await open(tmp, 'wx', options.mode ?? 0o644).catch((err: Error) => {
      throw new CliError(dest, `cannot create a temp file in ${path.dirname(dest)}: ${err.message}`, { cause: err });
    });
    for await (const chunk of source) {
      await writeAll(fh, chunk as Buffer).catch((err: Error) => {
        throw new CliError(dest, `writing: ${err.message}`, { cause: err });
      });
      written += chunk.length;
      meter.add(chunk.length);
    }
    if (written !== size) throw new CliError(dest, `wrote ${written} bytes, expected ${size}`);
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(tmp, dest).catch((err: Error) => {
      throw new CliError(dest, `renaming the finished temp file into place: ${err.message}`, { cause: err });
    });
    meter.finish();
    return written;
  } catch (err) {
    if (fh !== undefined) await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Bytes copied per read/write of writeSpliced: one buffer of this size, reused. */
const COPY_CHUNK = 1024 * 1024;

/**
 * Writes a whole SplicedFile to `dest` (see writeOutput) through one reused buffer, so memory
 * stays one chunk whatever the ISO's size (each chunk is written, or handed to stdout, before the
 * next read).
 */
export async function writeSpliced(file: SplicedFile, dest: string, options: OutputOptions): Promise<number> {
  return writeOutput(splicedChunks(file), file.size, dest, options);
}

async function* splicedChunks(file: SplicedFile): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(1, file.size)));
  for (let position = 0; position < file.size;) {
    const length = Math.min(buffer.length, file.size - position);
    const copied = await new Promise<number>((resolve, reject) =>
      file.readInto(buffer, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))),
    );
    if (copied !== length) throw new CliError(file.base.path, `read ${copied} of ${length} bytes at ${position}`);
    yield buffer.subarray(0, length);
    position += length;
  }
}

/**
 * Rewrites only `patches` (each zero-filled to its length) inside the existing file at `target`;
 * `expectedSize` guards against a file that changed since it was parsed.
 */
export async function patchInPlace(target: string, expectedSize: number, patches: readonly Patch[]): Promise<void> {
  const fh = await withContext(
    'cannot open for writing',
    () => open(target, 'r+'),
    (message, cause) => new CliError(target, message, { cause }),
  );
  try {
    await withContext(
      'writing in place',
      async () => {
        const size = await imageSize(fh, target);
        if (size !== expectedSize)
          throw new CliError(target, `changed size while being edited (${size} bytes, expected ${expectedSize})`);
        for (const p of patches) {
          const bytes = Buffer.alloc(p.length);
          p.bytes.copy(bytes, 0, 0, Math.min(p.bytes.length, p.length));
          await writeAll(fh, bytes, p.offset);
        }
        await fh.sync();
      },
      (message, cause) => (cause instanceof CliError ? cause : new CliError(target, message, { cause })),
    );
  } finally {
    await fh.close();
  }
}
