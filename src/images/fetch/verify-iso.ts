// Verifying a candidate base image before it may be served: its sha256 (computed here, or
// while it was downloaded) against the configured one, and its CoreOS live layout through
// the engine's parser (src/iso/live-layout.ts), which also rejects truncated images. The parse
// runs in a worker with a heap cap and a timeout (src/images/fetch/parse-worker.ts).
//
// Failures are ImageLoadErrors of class `never`: the same bytes would fail again.
// It does not rename, record or open anything for serving.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FormatError, describeError } from '../../errors.js';
import type { VerifiedFile } from '../cache/cache-record.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { layoutArchMismatch } from '../../iso/layout-arch.js';
import { parseLiveIsoInWorker } from './parse-worker.js';

export interface VerifyOptions {
  /** The configured sha256, when given. */
  expectedSha256?: string;
  /** The sha256 already computed while the file was written; hashed here when absent. */
  sha256?: string;
  signal: AbortSignal;
  /** Called with each chunk's size while hashing. */
  onHashBytes?: (bytes: number) => void;
  /** How to name the image in messages, e.g. `4.17 x86_64`. */
  label: string;
  /** The configured cpu_architecture: the layout must be that arch's (src/iso/layout-arch.ts). */
  cpuArchitecture?: string;
}

/** Verifies `file`; the result's `path` is `file` (callers rewrite it after renaming). */
export async function verifyIso(file: string, options: VerifyOptions): Promise<VerifiedFile> {
  const before = await stat(file);
  const sha256 = options.sha256 ?? (await hashFile(file, options.signal, options.onHashBytes));
  if (options.expectedSha256 && sha256 !== options.expectedSha256) {
    throw new ImageLoadError(
      'format',
      `${options.label}: sha256 is ${sha256} but the configuration says ${options.expectedSha256}`,
      'never',
      {
        sha256,
        expected: options.expectedSha256,
      },
    );
  }
  const manifest = await parseAsLiveIso(file, options.label, options.signal);
  const mismatch = options.cpuArchitecture ? layoutArchMismatch(manifest, options.cpuArchitecture) : undefined;
  if (mismatch)
    throw new ImageLoadError('format', `${options.label}: not usable: ${mismatch.message}`, 'never', {
      path: file,
      file: mismatch.file,
      offset: mismatch.offset,
    });
  if (manifest.size !== before.size) {
    throw new ImageLoadError('internal', `${options.label}: ${file} changed while it was being verified`, 'fast', {
      path: file,
    });
  }
  return {
    path: file,
    size: before.size,
    mtimeMs: before.mtimeMs,
    ino: before.ino,
    ctimeMs: before.ctimeMs,
    sha256,
    manifest,
  };
}

/** parseLiveIso (in a worker) with its FormatErrors turned into `never` load errors. */
export async function parseAsLiveIso(
  file: string,
  label: string,
  signal?: AbortSignal,
): Promise<VerifiedFile['manifest']> {
  try {
    return await parseLiveIsoInWorker(file, signal ? { signal } : {});
  } catch (err) {
    if (err instanceof FormatError) {
      throw new ImageLoadError(
        'format',
        `${label}: not a usable CoreOS live ISO: ${describeError(err)}`,
        'never',
        { path: file },
        { cause: err },
      );
    }
    if (err instanceof ImageLoadError)
      throw new ImageLoadError(
        err.kind as 'format',
        `${label}: ${err.message}`,
        err.retry,
        { ...err.context },
        { cause: err },
      );
    throw err;
  }
}

/** Lower-case hex sha256 of a whole file. */
export async function hashFile(file: string, signal: AbortSignal, onBytes?: (bytes: number) => void): Promise<string> {
  const hash = createHash('sha256');
  await hashInto(hash, file, undefined, signal, onBytes);
  return hash.digest('hex');
}

/** Feeds bytes [0, end) of `file` (the whole file when `end` is undefined) into `hash`. */
export async function hashInto(
  hash: ReturnType<typeof createHash>,
  file: string,
  end: number | undefined,
  signal: AbortSignal,
  onBytes?: (bytes: number) => void,
): Promise<void> {
  if (end === 0) return;
  const source = createReadStream(file, { highWaterMark: 1024 * 1024, ...(end !== undefined ? { end: end - 1 } : {}) });
  await pipeline(
    source,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        onBytes?.(chunk.length);
        callback();
      },
    }),
    { signal },
  );
}
