// A blob's bytes as a stream that proves them: every chunk goes through a sha256 on its way,
// the blob must be exactly its descriptor's size, and at its end the digest must be the one
// the manifest names — otherwise the stream fails (a RegistryError of class `never`), so no
// consumer ever finishes on unverified bytes.
//
// A transfer that breaks (reset, premature end, a stall past the idle clock) is resumed at the
// next byte with `Range: bytes=N-` (registries serve blobs with byte ranges), at most
// `maxReconnects` times per blob; the hash simply carries on. A resume after a restart starts
// from `start` with the hash of the bytes before it (the caller re-hashes its partial file),
// so a raw ISO blob never downloads twice. A registry that answers a resume with the whole blob
// (200) is read from its beginning with the first `position` bytes dropped.
//
// Does: stream, count, hash, verify, resume. Does not: decompress or write files
// (layer-decoder.ts, iso-extract.ts). Next: layer-decoder.ts.
import { type Hash, createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describeError } from '../../../errors.js';
import { retryClassOf, sleep } from '../../load-failure/retry-policy.js';
import type { RegistryClient } from './registry-client.js';
import { RegistryError } from './registry-error.js';

export interface BlobDescriptor {
  digest: string;
  size: number;
}

export interface BlobReadOptions {
  /** First byte to read (a resumed transfer); 0 for the whole blob. */
  start: number;
  /** The sha256 of bytes [0, start); a fresh hash when omitted (then `start` must be 0). */
  hash?: Hash;
  signal: AbortSignal;
  /** Connections re-opened after a broken transfer, per blob. */
  maxReconnects: number;
  /** Pause before re-opening a broken transfer. */
  reconnectDelayMs: number;
  /** A recoverable event worth a log line (a resume); never carries secrets. */
  onNotice?: (message: string, context: Record<string, unknown>) => void;
}

/** Each broken transfer is resumed this many times before the blob fails (the image store retries later). */
export const DEFAULT_MAX_RECONNECTS = 5;
export const DEFAULT_RECONNECT_DELAY_MS = 1_000;

/** A stream of the blob's bytes from `options.start`, failing unless they hash to the digest. */
export function readVerifiedBlob(
  client: RegistryClient,
  repository: string,
  blob: BlobDescriptor,
  options: BlobReadOptions,
): Readable {
  return Readable.from(verifiedChunks(client, repository, blob, options), { objectMode: false });
}

async function* verifiedChunks(
  client: RegistryClient,
  repository: string,
  blob: BlobDescriptor,
  options: BlobReadOptions,
): AsyncGenerator<Buffer> {
  const where = { registry: client.registry, repository, step: 'blob' as const };
  if (options.start > 0 && options.hash === undefined)
    throw new Error('internal: resuming a blob needs the hash of the bytes before the offset');
  if (options.start > blob.size)
    throw new RegistryError(
      `blob ${blob.digest}: resume offset ${options.start} is past its ${blob.size} bytes`,
      where,
      'never',
    );
  const hash = options.hash ?? createHash('sha256');
  let position = options.start;
  let reconnects = 0;
  while (position < blob.size) {
    let dropped = 0;
    try {
      const body = await client.openBlob(repository, blob.digest, position, options.signal);
      if (body.kind === 'complete') break;
      let skip = position - body.start; // a 200 to a Range: drop what we have
      if (body.total !== undefined && body.total !== blob.size) {
        body.stream.destroy();
        throw new RegistryError(
          `registry ${client.registry} says blob ${blob.digest} of ${repository} has ${body.total} bytes; the manifest says ${blob.size}`,
          where,
          'never',
          'format',
        );
      }
      for await (const raw of body.stream as AsyncIterable<Buffer>) {
        let chunk = raw;
        if (skip > 0) {
          const cut = Math.min(skip, chunk.length);
          skip -= cut;
          dropped += cut;
          chunk = chunk.subarray(cut);
          if (chunk.length === 0) continue;
        }
        if (position + chunk.length > blob.size) {
          throw new RegistryError(
            `registry ${client.registry} sent more than the ${blob.size} bytes of blob ${blob.digest} for ${repository}`,
            where,
            'never',
            'format',
          );
        }
        hash.update(chunk);
        position += chunk.length;
        yield chunk;
      }
      if (position < blob.size)
        throw Object.assign(new Error('the body ended early'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    } catch (err) {
      if (options.signal.aborted) throw options.signal.reason;
      const retry = err instanceof RegistryError ? err.retry : retryClassOf(err);
      if (retry !== 'fast' || reconnects >= options.maxReconnects) {
        if (err instanceof RegistryError) throw err;
        throw new RegistryError(
          `registry ${client.registry}: blob ${blob.digest} of ${repository} broke after ${position} of ${blob.size} bytes: ${describeError(err)}`,
          where,
          retry,
          'upstream',
          { cause: err },
        );
      }
      reconnects++;
      options.onNotice?.('blob transfer broke; resuming with Range', {
        registry: client.registry,
        repository,
        digest: blob.digest,
        at: position,
        dropped,
        reconnect: reconnects,
        reason: describeError(err),
      });
      await sleep(options.reconnectDelayMs, options.signal);
    }
  }
  const actual = `sha256:${hash.digest('hex')}`;
  if (actual !== blob.digest) {
    throw new RegistryError(
      `registry ${client.registry} sent blob ${blob.digest} of ${repository} whose sha256 is ${actual}: the bytes do not match their digest`,
      where,
      'never',
      'format',
    );
  }
}
