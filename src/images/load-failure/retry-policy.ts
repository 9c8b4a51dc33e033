// When to retry a failed image load: the classification of errors into retry classes
// (see src/images/load-failure/load-error.ts) and the two backoff schedules.
//
// Fast retries happen inside one load (a few attempts, each resuming the download);
// slow retries are timers of the loader (src/images/loader/image-loader.ts). Pure functions plus an abortable sleep; no I/O.
// Next: src/images/load-failure/disk-full.ts (the error a full disk becomes).
import { FormatError } from '../../errors.js';
import { ImageLoadError, type RetryClass } from './load-error.js';

export interface RetryPolicy {
  /** Attempts within one load for `fast` errors (1 = no immediate retry). */
  attempts: number;
  /** Delay before the second attempt; doubles for each further attempt. */
  baseDelayMs: number;
  /** Delay before the first slow retry; doubles for each further failure. */
  slowDelayMs: number;
  /** Upper bound of the slow schedule. */
  slowMaxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 3,
  baseDelayMs: 2_000,
  slowDelayMs: 5 * 60_000,
  slowMaxDelayMs: 60 * 60_000,
};

/** Node network error codes that say nothing about the bytes: worth retrying at once. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Codes of local conditions that an operator (or time) can fix without a config change. */
const SLOW_CODES = new Set(['ENOENT', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

/** The retry class of any error thrown while loading an image. */
export function retryClassOf(err: unknown): RetryClass {
  if (err instanceof ImageLoadError) return err.retry;
  if (err instanceof FormatError) return 'never';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (TRANSIENT_CODES.has(code)) return 'fast';
    if (SLOW_CODES.has(code)) return 'slow';
    if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.includes('SIGNATURE')) return 'slow';
  }
  return 'slow';
}

/** The retry class of an HTTP (or S3) error status. */
export function retryClassOfStatus(status: number): RetryClass {
  if (status >= 500 || status === 408 || status === 429) return 'fast';
  return 'slow';
}

/** Delay before fast attempt `attempt` (2, 3, ...). */
export function fastDelayMs(policy: RetryPolicy, attempt: number): number {
  return policy.baseDelayMs * 2 ** Math.max(0, attempt - 2);
}

/** Delay before the slow retry that follows `failures` consecutive failed loads (1, 2, ...). */
export function slowDelayMs(policy: RetryPolicy, failures: number): number {
  return Math.min(policy.slowMaxDelayMs, policy.slowDelayMs * 2 ** Math.max(0, failures - 1));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
