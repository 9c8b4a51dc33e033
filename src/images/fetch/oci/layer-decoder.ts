// A layer's bytes decompressed as they stream: gzip (node:zlib, multi-member) or zstd (the
// pure-JS `fzstd`, pushed chunk by chunk; Node 20's zlib has no zstd) or none, chosen by the
// first bytes (magic numbers), not by the media type: tools label layers loosely (`oras push`
// calls any file `…layer.v1.tar`), and a raw ISO never starts with a gzip or zstd magic.
// The media type is only checked for consistency: a layer declared `+gzip`/`+zstd` whose
// bytes are not is refused.
//
// Output is bounded (`maxBytes`): a decompression bomb fails as soon as it passes the limit.
// fzstd supports windows up to 32 MiB (zstd levels below 20 and no `--long`); larger windows
// fail with a FormatError naming zstd. Does: sniff, decompress, count. Does not: read tar
// (tar-reader.ts). Next: tar-reader.ts.
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress } from 'fzstd';
import { FormatError, describeError } from '../../../errors.js';

export type LayerCompression = 'gzip' | 'zstd' | 'none';

const GZIP_MAGIC = [0x1f, 0x8b];
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

export function sniffCompression(head: Buffer): LayerCompression {
  if (GZIP_MAGIC.every((b, i) => head[i] === b)) return 'gzip';
  if (ZSTD_MAGIC.every((b, i) => head[i] === b)) return 'zstd';
  return 'none';
}

/** What a media type claims, when it says anything about compression. */
export function declaredCompression(mediaType: string): LayerCompression | undefined {
  if (/[.+]gzip$/.test(mediaType)) return 'gzip';
  if (/[.+]zstd$/.test(mediaType)) return 'zstd';
  return undefined;
}

/**
 * Decompresses `source` (whose first bytes decide the format) into a stream of at most
 * `maxBytes` bytes. Resolves once the format is known; errors surface on the returned stream.
 */
export async function decodeLayer(
  source: Readable,
  mediaType: string,
  maxBytes: number,
  label: string,
): Promise<{ compression: LayerCompression; stream: Readable }> {
  const { head, stream: input } = await peekStream(source, 4);
  const compression = sniffCompression(head);
  const declared = declaredCompression(mediaType);
  if (declared !== undefined && declared !== compression) {
    input.destroy();
    throw new FormatError(
      `${label}: the layer is declared ${mediaType} but its bytes are ${compression === 'none' ? 'not compressed' : compression}`,
    );
  }
  const limit = new ByteLimit(maxBytes, label);
  const done = (err: NodeJS.ErrnoException | null) => void err;
  switch (compression) {
    case 'gzip':
      return {
        compression,
        stream: pipeline(input, wrapErrors(createGunzip({ chunkSize: 256 * 1024 }), 'gzip', label), limit, done),
      };
    case 'zstd':
      return { compression, stream: pipeline(input, new ZstdDecoder(label), limit, done) };
    case 'none':
      return { compression, stream: pipeline(input, limit, done) };
  }
}

/**
 * The first `n` bytes of `source` (fewer if it is shorter) and a stream of all its bytes, those
 * included. Errors of `source` surface on the returned stream; destroying it destroys `source`.
 */
export async function peekStream(source: Readable, n: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let have = 0;
  let done = false;
  while (have < n) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    parts.push(next.value);
    have += next.value.length;
  }
  const head = Buffer.concat(parts, have);
  async function* all(): AsyncGenerator<Buffer> {
    let finished = done;
    try {
      if (head.length > 0) yield head;
      while (!finished) {
        const next = await iterator.next();
        if (next.done) finished = true;
        else yield next.value;
      }
    } finally {
      if (!finished) await iterator.return?.();
    }
  }
  return { head, stream: Readable.from(all(), { objectMode: false }) };
}

/** Fails the stream once more than `max` bytes passed. */
class ByteLimit extends Transform {
  private seen = 0;
  constructor(
    private readonly max: number,
    private readonly label: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) {
      callback(new FormatError(`${this.label}: the layer expands to more than ${this.max} bytes`, { limit: this.max }));
      return;
    }
    callback(null, chunk);
  }
}

/** fzstd's push-based decoder as a Transform. */
class ZstdDecoder extends Transform {
  private readonly decoder: Decompress;
  private ended = false;

  constructor(private readonly label: string) {
    super();
    this.decoder = new Decompress((data, final) => {
      if (data.length > 0) this.push(Buffer.from(data)); // fzstd may reuse its window buffer
      if (final) this.ended = true;
    });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.decoder.push(chunk);
      callback();
    } catch (err) {
      callback(this.corrupt(err));
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.decoder.push(new Uint8Array(0), true);
      callback(this.ended ? null : new FormatError(`${this.label}: the zstd stream is truncated`));
    } catch (err) {
      callback(this.corrupt(err));
    }
  }

  private corrupt(err: unknown): FormatError {
    return new FormatError(
      `${this.label}: corrupt or unsupported zstd data: ${describeError(err)}`,
      {},
      { cause: err },
    );
  }
}

/** zlib errors (Z_DATA_ERROR …) become FormatErrors naming the layer. */
function wrapErrors(stream: Transform, format: string, label: string): Transform {
  const original = stream.destroy.bind(stream);
  stream.destroy = (err?: Error) => {
    if (
      err &&
      !(err instanceof FormatError) &&
      typeof (err as { code?: unknown }).code === 'string' &&
      String((err as { code?: unknown }).code).startsWith('Z_')
    )
      return original(new FormatError(`${label}: corrupt ${format} data: ${err.message}`, {}, { cause: err }));
    return original(err);
  };
  return stream;
}
