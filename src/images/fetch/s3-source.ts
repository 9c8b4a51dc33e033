// Downloading an image from `s3://bucket/key` with @aws-sdk/client-s3 (GetObject), resuming
// with `Range` guarded by `If-Match` on the first answer's ETag. Region, endpoint, path-style
// addressing and static credentials come from S3Settings (src/images/store-settings.ts reads
// the standard AWS environment); without static credentials the SDK's default chain applies
// (profiles, web identity, instance metadata).
//
// The SDK's own retries are off: the store's retry policy decides (src/images/load-failure/retry-policy.ts).
// It does not write files or hash.
import type { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describeError } from '../../errors.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { retryClassOf, retryClassOfStatus } from '../load-failure/retry-policy.js';
import {
  type OpenRequest,
  type RemoteBody,
  type RemoteSource,
  collectExactly,
  parseContentRange,
} from './remote-source.js';

export interface S3Settings {
  region: string;
  /** AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL: an S3-compatible store (MinIO, Ceph RGW, ...). */
  endpoint: string | undefined;
  /** S3_FORCE_PATH_STYLE=true: `endpoint/bucket/key` instead of `bucket.endpoint/key`. */
  forcePathStyle: boolean;
  /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN); else the SDK's default chain. */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
  idleTimeoutMs: number;
}

export class S3Source implements RemoteSource {
  readonly description: string;
  private readonly bucket: string;
  private readonly key: string;
  private client: S3Client | undefined;

  constructor(
    url: string,
    private readonly settings: S3Settings,
  ) {
    const parsed = new URL(url);
    this.bucket = parsed.hostname;
    this.key = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    if (!this.bucket || !this.key)
      throw new ImageLoadError('upstream', `${url}: an S3 URL must be s3://bucket/key`, 'never');
    this.description = `s3://${this.bucket}/${this.key}`;
  }

  async open({ offset, validator, signal }: OpenRequest): Promise<RemoteBody> {
    // a Range without If-Match could splice two versions of the object: only resume with an ETag
    if (offset > 0 && !validator) return this.open({ offset: 0, validator: undefined, signal });
    let out;
    try {
      out = await this.s3().send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.key,
          ...(offset > 0 ? { Range: `bytes=${offset}-`, ...(validator ? { IfMatch: validator } : {}) } : {}),
        }),
        { abortSignal: signal },
      );
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const status = httpStatusOf(err);
      // 416: nothing at that offset; 412: the object changed since the download began
      if (offset > 0 && (status === 416 || status === 412))
        return this.open({ offset: 0, validator: undefined, signal });
      throw getObjectError(this.description, err, status);
    }
    const stream = out.Body as Readable | undefined;
    if (!stream) throw new ImageLoadError('upstream', `${this.description}: GetObject returned no body`, 'fast');
    if (offset > 0) {
      const range = parseContentRange(out.ContentRange);
      if (range?.start !== offset) {
        stream.destroy();
        return this.open({ offset: 0, validator: undefined, signal });
      }
      return { kind: 'bytes', start: offset, total: range.total, validator, stream };
    }
    return { kind: 'bytes', start: 0, total: out.ContentLength, validator: out.ETag, stream };
  }

  async readRange(start: number, end: number, validator: string | undefined, signal: AbortSignal): Promise<Buffer> {
    const what = `${this.description} bytes ${start}-${end}`;
    let out;
    try {
      out = await this.s3().send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.key,
          Range: `bytes=${start}-${end}`,
          ...(validator ? { IfMatch: validator } : {}),
        }),
        { abortSignal: signal },
      );
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw getObjectError(what, err, httpStatusOf(err));
    }
    const stream = out.Body as Readable | undefined;
    const range = parseContentRange(out.ContentRange);
    if (!stream || range?.start !== start || range.end !== end) {
      stream?.destroy();
      throw new ImageLoadError(
        'upstream',
        `${what}: GetObject answered ${out.ContentRange ?? 'no Content-Range'}`,
        'fast',
      );
    }
    return collectExactly(stream, end - start + 1, what);
  }

  close(): void {
    this.client?.destroy();
    this.client = undefined;
  }

  private s3(): S3Client {
    this.client ??= new S3Client({
      region: this.settings.region,
      ...(this.settings.endpoint ? { endpoint: this.settings.endpoint } : {}),
      forcePathStyle: this.settings.forcePathStyle,
      ...(this.settings.credentials ? { credentials: this.settings.credentials } : {}),
      followRegionRedirects: true,
      maxAttempts: 1,
      requestHandler: { connectionTimeout: 30_000, requestTimeout: this.settings.idleTimeoutMs },
    });
    return this.client;
  }
}

/** The HTTP status of a failed S3 call, when the SDK got that far. */
function httpStatusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/** A failed GetObject as an ImageLoadError, retried by its status (or its network error). */
function getObjectError(what: string, err: unknown, status: number | undefined): ImageLoadError {
  return new ImageLoadError(
    'upstream',
    `${what}: ${describeError(err)}${status ? ` (HTTP ${status})` : ''}`,
    status !== undefined ? retryClassOfStatus(status) : retryClassOf(err),
    { status },
    { cause: err },
  );
}
