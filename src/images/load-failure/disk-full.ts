// Recognising a full disk (ENOSPC, EDQUOT) anywhere in an error's cause chain, and the typed
// error the image store reports for it: it names the directory whose disk is full and is
// retried on the slow schedule (src/images/load-failure/retry-policy.ts), never at once.
// Does NOT: remove anything itself: callers delete their partial files before throwing it
// (src/images/loader/obtain-iso.ts for an origin's `.part`, src/images/fetch/download.ts for a
// download's).
import path from 'node:path';
import { describeError } from '../../errors.js';
import { ImageLoadError } from './load-error.js';

const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** Causes followed before giving up: errors are wrapped a few times at most. */
const MAX_CAUSE_DEPTH = 8;

/** The ENOSPC/EDQUOT code in `err` or its causes, or undefined. */
export function diskFullCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let i = 0; i < MAX_CAUSE_DEPTH && current !== null && typeof current === 'object'; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The store's error for a write of `file` that hit a full disk; the partial file is already gone. */
export function diskFullError(err: unknown, code: string, file: string, label: string): ImageLoadError {
  const dir = path.dirname(file);
  return new ImageLoadError(
    'unavailable',
    `${label}: the disk holding ${dir} is full (${code}); the partial file ${path.basename(file)} was removed and the download is retried later`,
    'slow',
    { code, dir },
    { cause: err instanceof Error ? new Error(describeError(err)) : err },
  );
}
