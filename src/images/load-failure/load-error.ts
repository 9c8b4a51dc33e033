// The typed error of the image store: why one base image could not be made ready, and
// what retrying can achieve, which drives the store's retry schedule. It opens the image side's
// failure vocabulary (src/images/load-failure/: this error, the retry policy, the full-disk error),
// a leaf room that fetch/, origins/, cache/ and loader/ import and that imports none of them:
//
//   fast       a transient fault (network error, reset, timeout, truncated body, HTTP 5xx/408/429):
//              retried a few times at once with exponential backoff, resuming the download,
//              then on the slow schedule
//   slow       the remote or the host may change without a config change (HTTP 401/403/404/410,
//              TLS trust failures, a local file missing, a full disk): retried on a slow,
//              doubling schedule
//   never      the bytes are wrong (sha256 mismatch, not an ISO, no CoreOS layout, a zip without
//              exactly one ISO): retrying the same configuration cannot help; fixed by a config
//              change and restart
//   on-demand  the disk budget is full: the image is fetched when it is next requested
//
// Does NOT: decide anything itself. Next: src/images/load-failure/retry-policy.ts, which classifies
// foreign errors and holds the backoff schedules.
import { BootsmithError, type ErrorKind } from '../../errors.js';

export type RetryClass = 'fast' | 'slow' | 'never' | 'on-demand';

export class ImageLoadError extends BootsmithError {
  readonly retry: RetryClass;

  constructor(
    kind: Extract<ErrorKind, 'upstream' | 'format' | 'unavailable' | 'internal'>,
    message: string,
    retry: RetryClass,
    context: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(kind, message, context, options);
    this.retry = retry;
  }
}
