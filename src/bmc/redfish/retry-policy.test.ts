import { describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS } from './limits.js';
import { type AttemptResult, isRetryable, nextDelayMs } from './retry-policy.js';

const CASES: [string, AttemptResult, boolean][] = [
  ['500', { status: 500 }, true],
  ['502 from a proxy', { status: 502 }, true],
  ['503 busy', { status: 503 }, true],
  ['504', { status: 504 }, true],
  ['599', { status: 599 }, true],
  ['501 Not Implemented (permanent)', { status: 501 }, false],
  ['505 HTTP Version Not Supported (permanent)', { status: 505 }, false],
  ['400', { status: 400 }, false],
  ['401 wrong password', { status: 401 }, false],
  ['404', { status: 404 }, false],
  ['405 slot refuses InsertMedia', { status: 405 }, false],
  ['429', { status: 429 }, false],
  ['200', { status: 200 }, false],
  ['connection reset', { failure: 'connection-reset' }, true],
  ['refused port', { failure: 'unreachable' }, false],
  ['connect timeout', { failure: 'connect-timeout' }, false],
  ['TLS never completes', { failure: 'tls-timeout' }, false],
  ['certificate not trusted', { failure: 'tls' }, false],
  ['hung response', { failure: 'request-timeout' }, false],
  ['huge body', { failure: 'too-large' }, false],
  ['malformed JSON', { failure: 'malformed' }, false],
];

describe('retry policy', () => {
  it.each(CASES)('%s → retry %s', (_name, result, retry) => {
    expect(isRetryable(result)).toBe(retry);
    expect(nextDelayMs(1, result, [7, 8, 9])).toBe(retry ? 7 : undefined);
  });

  it('walks the delays and stops when they are used up (4 attempts with the defaults)', () => {
    const r: AttemptResult = { status: 503 };
    const delays = [1, 2, 3].map((attempt) => nextDelayMs(attempt, r, RETRY_DELAYS_MS));
    expect(delays).toEqual([3_000, 6_000, 12_000]);
    expect(nextDelayMs(4, r, RETRY_DELAYS_MS)).toBeUndefined();
    expect(nextDelayMs(1, r, [])).toBeUndefined();
  });
});
