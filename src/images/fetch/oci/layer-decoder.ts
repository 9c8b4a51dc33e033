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
import { Transform, type Readable, type TransformCallback } from 'node:stream';
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
  const head = await peekBytes(source, 4);
  const compression = sniffCompression(head);
  const declared = declaredCompression(mediaType);
  if (declared !== undefined && declared !== compression) {
    source.destroy();
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
        stream: pipeline(source, wrapErrors(createGunzip({ chunkSize: 256 * 1024 }), 'gzip', label), limit, done),
      };
    case 'zstd':
      return { compression, stream: pipeline(source, new ZstdDecoder(label), limit, done) };
    case 'none':
      return { compression, stream: pipeline(source, limit, done) };
  }
}

/** Reads until at least `n` bytes are buffered (or the stream ends), then puts them back. */
export async function peekBytes(source: Readable, n: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let have = 0;
  while (have < n) {
    const chunk = await new Promise<Buffer | null>((resolve, reject) => {
      const onReadable = () => {
        cleanup();
        resolve(source.read() as Buffer | null);
      };
      const onEnd = () => {
        cleanup();
        resolve(null);
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const cleanup = () => {
        source.off('readable', onReadable);
        source.off('end', onEnd);
        source.off('error', onError);
      };
      const ready = source.read() as Buffer | null;
      if (ready !== null) {
        resolve(ready);
        return;
      }
      if (source.readableEnded) {
        resolve(null);
        return;
      }
      source.on('readable', onReadable);
      source.on('end', onEnd);
      source.on('error', onError);
    });
    if (chunk === null) break;
    parts.push(chunk);
    have += chunk.length;
  }
  const head = Buffer.concat(parts);
  if (head.length > 0) source.unshift(head);
  return head;
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
