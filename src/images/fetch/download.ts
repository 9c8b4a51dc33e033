// Downloading one remote object into a `.part` file: resumable, hashed while it streams,
// retried at once for transient faults (src/images/load-failure/retry-policy.ts).
//
// Resume: the `.part` keeps the bytes of earlier attempts (also across a killed process) and
// a sidecar `.part.json`, written before the first byte, holds the first answer's validator
// (strong ETag or Last-Modified) and size. A `.part` is resumed only with that validator: a new
// attempt re-hashes the prefix already on disk (or continues the hash of the previous attempt
// in this process), asks for the rest with Range + If-Range (or If-Match), and starts from 0
// when the remote sends the whole object instead. Without a validator (the remote sent
// neither) the `.part` is never resumed, not even after a kill -9: it is downloaded again from
// the first byte, so a file that changed in between can never be spliced from two versions.
// A body that ends before the announced size is a transient fault; the next attempt resumes
// after the last byte written (with the validator) or starts over (without).
//
// A full disk (ENOSPC, EDQUOT) removes the `.part` and its sidecar at once, so the rest of the
// process (the database above all) gets its space back; the error names the disk and is
// retried on the slow schedule.
//
// It does not verify the content, rename the `.part` or decide about the disk budget: it
// calls `onStart` with the size so its caller can refuse (by throwing) before any byte lands.
import { type Hash, createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { describeError } from '../../errors.js';
import { removeFiles, writeFileAtomic } from '../../fs/atomic-file.js';
import { openPartFile, regularPartSize } from '../../fs/part-file.js';
import { CacheFiles } from '../cache/cache-layout.js';
import { diskFullCode, diskFullError } from '../load-failure/disk-full.js';
import { HashingFileWriter } from './hashing-writer.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { type RetryPolicy, fastDelayMs, retryClassOf, sleep } from '../load-failure/retry-policy.js';
import type { RemoteSource } from './remote-source.js';
import { hashInto } from './verify-iso.js';

export interface DownloadHooks {
  signal: AbortSignal;
  /** The transfer (re)starts at `already` bytes of `total`; throw to refuse it. */
  onStart(total: number | undefined, already: number): void;
  onBytes(bytes: number): void;
  /** A recoverable event worth a log line (a retry, a restart from 0); never carries secrets. */
  onNotice(message: string, context: Record<string, unknown>): void;
}

export interface DownloadResult {
  sha256: string;
  size: number;
}

interface PartInfo {
  validator?: string;
  total?: number;
}

/** The hash of the first `size` bytes of the `.part`, carried from one attempt to the next. */
interface Carried {
  size: number;
  hash: Hash;
}

export async function downloadToFile(
  source: RemoteSource,
  part: string,
  hooks: DownloadHooks,
  policy: RetryPolicy,
): Promise<DownloadResult> {
  const carry: { value?: Carried } = {};
  for (let attempt = 1; ; attempt++) {
    try {
      return await downloadOnce(source, part, hooks, carry);
    } catch (err) {
      if (hooks.signal.aborted) throw hooks.signal.reason;
      const full = diskFullCode(err);
      if (full !== undefined) {
        carry.value = undefined;
        await removePart(part);
        throw diskFullError(err, full, part, source.description);
      }
      if (retryClassOf(err) !== 'fast' || attempt >= policy.attempts) throw err;
      const delay = fastDelayMs(policy, attempt + 1);
      hooks.onNotice('download attempt failed; retrying', { attempt, reason: describeError(err), retryInMs: delay });
      await sleep(delay, hooks.signal);
    }
  }
}

/** Removes a `.part` and its sidecar. */
export async function removePart(part: string): Promise<void> {
  await removeFiles(part, CacheFiles.partInfo(part));
}

async function downloadOnce(
  source: RemoteSource,
  part: string,
  hooks: DownloadHooks,
  carry: { value?: Carried },
): Promise<DownloadResult> {
  const infoFile = CacheFiles.partInfo(part);
  const found = await regularPartSize(part);
  if (found.removed) hooks.onNotice(`${found.removed}; downloading from the first byte`, { part });
  let offset = found.size;
  const info: PartInfo = offset > 0 ? await readPartInfo(infoFile) : {};
  if (info.total !== undefined && offset > info.total) offset = 0; // longer than the object: useless
  if (offset > 0 && info.validator === undefined) {
    // nothing proves the remote still has the object these bytes came from
    hooks.onNotice('the source gave no ETag or Last-Modified to resume with; starting again from the first byte', {
      had: offset,
    });
    offset = 0;
    carry.value = undefined;
  }
  if (offset > 0 && offset === info.total) {
    // complete before the process stopped; nothing to ask the remote
    hooks.onStart(info.total, offset);
    return { sha256: (await prefixHash(part, offset, hooks.signal, carry)).digest('hex'), size: offset };
  }

  const body = await source.open({ offset, validator: info.validator, signal: hooks.signal });
  if (body.kind === 'complete') {
    hooks.onStart(body.total, offset);
    return { sha256: (await prefixHash(part, offset, hooks.signal, carry)).digest('hex'), size: offset };
  }
  if (body.start !== offset) {
    hooks.onNotice('the server did not resume the download; starting again from the first byte', { had: offset });
    offset = 0;
  }
  const total = body.total ?? (offset > 0 ? info.total : undefined);
  try {
    hooks.onStart(total, offset); // a refusal (budget, free space) leaves nothing behind
    if (offset === 0) {
      await writeFileAtomic(
        infoFile,
        JSON.stringify({ validator: body.validator, total: body.total } satisfies PartInfo),
      );
    }
  } catch (err) {
    body.stream.destroy();
    throw err;
  }
  const hash = await prefixHash(part, offset, hooks.signal, carry).catch((err: unknown) => {
    body.stream.destroy();
    throw err;
  });

  const handle = await openPartFile(part, { resume: offset > 0 });
  const writer = new HashingFileWriter(handle, offset, hash, hooks.onBytes);
  let failure: { err: unknown } | undefined;
  try {
    await pipeline(body.stream, writer, { signal: hooks.signal });
    await handle.sync();
  } catch (err) {
    failure = { err };
  } finally {
    await handle.close(); // waits for a write still in flight, so `writer.position` is final
  }
  if (failure) {
    carry.value = { size: writer.position, hash };
    if (hooks.signal.aborted) throw hooks.signal.reason;
    if (failure.err instanceof ImageLoadError) throw failure.err;
    throw new ImageLoadError(
      'upstream',
      `${source.description}: transfer broke after ${writer.position} bytes: ${describeError(failure.err)}`,
      retryClassOf(failure.err),
      {
        bytes: writer.position,
      },
      { cause: failure.err },
    );
  }

  const position = writer.position;
  if (total !== undefined && position !== total) {
    if (position > total) await removePart(part);
    else carry.value = { size: position, hash };
    throw new ImageLoadError(
      'upstream',
      `${source.description}: the body ended after ${position} of ${total} bytes`,
      'fast',
      {
        bytes: position,
        total,
      },
    );
  }
  return { sha256: hash.digest('hex'), size: position };
}

/** The hash of the `.part`'s first `size` bytes: carried over when it matches, else re-read. */
async function prefixHash(part: string, size: number, signal: AbortSignal, carry: { value?: Carried }): Promise<Hash> {
  const carried = carry.value;
  carry.value = undefined;
  if (carried && carried.size === size) return carried.hash;
  const hash = createHash('sha256');
  await hashInto(hash, part, size, signal);
  return hash;
}

async function readPartInfo(file: string): Promise<PartInfo> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as PartInfo;
    return {
      ...(typeof parsed.validator === 'string' ? { validator: parsed.validator } : {}),
      ...(typeof parsed.total === 'number' ? { total: parsed.total } : {}),
    };
  } catch {
    return {};
  }
}
