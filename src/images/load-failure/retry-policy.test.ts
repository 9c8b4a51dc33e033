// The retry policy as tables: which retry class an error or an HTTP status gets, and the two
// backoff schedules; the abortable sleep. Pure (timers only).
import { describe, expect, it } from 'vitest';

import { FormatError } from '../../errors.js';
import { ImageLoadError, type RetryClass } from './load-error.js';
import {
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  fastDelayMs,
  retryClassOf,
  retryClassOfStatus,
  sleep,
  slowDelayMs,
} from './retry-policy.js';

const coded = (code: string): Error => Object.assign(new Error(`failed: ${code}`), { code });

describe('retryClassOf: table', () => {
  it.each<[string, unknown, RetryClass]>([
    ['an ImageLoadError keeps its class (never)', new ImageLoadError('format', 'bad bytes', 'never'), 'never'],
    [
      'an ImageLoadError keeps its class (on-demand)',
      new ImageLoadError('unavailable', 'full', 'on-demand'),
      'on-demand',
    ],
    ['an ImageLoadError keeps its class (fast)', new ImageLoadError('upstream', 'reset', 'fast'), 'fast'],
    ['a FormatError: the bytes are wrong', new FormatError('not an ISO'), 'never'],
    ['a reset connection', coded('ECONNRESET'), 'fast'],
    ['a refused connection', coded('ECONNREFUSED'), 'fast'],
    ['a timeout', coded('ETIMEDOUT'), 'fast'],
    ['a DNS failure', coded('ENOTFOUND'), 'fast'],
    ['a stream closed early', coded('ERR_STREAM_PREMATURE_CLOSE'), 'fast'],
    ['undici socket error', coded('UND_ERR_SOCKET'), 'fast'],
    ['a missing local file', coded('ENOENT'), 'slow'],
    ['no permission', coded('EACCES'), 'slow'],
    ['a full disk', coded('ENOSPC'), 'slow'],
    ['a quota', coded('EDQUOT'), 'slow'],
    ['a TLS failure', coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'slow'],
    ['an untrusted certificate', coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'slow'],
    ['a self-signed certificate', coded('DEPTH_ZERO_SELF_SIGNED_CERT'), 'slow'],
    ['an unknown code', coded('EWHATEVER'), 'slow'],
    ['a plain error', new Error('something'), 'slow'],
    ['not an error at all', 'a string', 'slow'],
    ['null', null, 'slow'],
  ])('%s → %s', (_name, err, expected) => {
    expect(retryClassOf(err)).toBe(expected);
  });
});

describe('retryClassOfStatus: table', () => {
  it.each<[number, RetryClass]>([
    [500, 'fast'],
    [502, 'fast'],
    [503, 'fast'],
    [408, 'fast'],
    [429, 'fast'],
    [400, 'slow'],
    [401, 'slow'],
    [403, 'slow'],
    [404, 'slow'],
    [410, 'slow'],
  ])('HTTP %i → %s', (status, expected) => {
    expect(retryClassOfStatus(status)).toBe(expected);
  });
});

describe('the backoff schedules', () => {
  const policy: RetryPolicy = { attempts: 3, baseDelayMs: 100, slowDelayMs: 1_000, slowMaxDelayMs: 5_000 };

  it.each<[number, number]>([
    [2, 100],
    [3, 200],
    [4, 400],
    [5, 800],
  ])('fast attempt %i waits %i ms (doubling from the base delay)', (attempt, ms) => {
    expect(fastDelayMs(policy, attempt)).toBe(ms);
  });

  it.each<[number, number]>([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 5_000],
    [20, 5_000],
  ])('after %i failed loads the slow retry waits %i ms (doubling, capped)', (failures, ms) => {
    expect(slowDelayMs(policy, failures)).toBe(ms);
  });

  it('the default policy retries fast twice, then every 5 minutes doubling up to an hour', () => {
    expect(DEFAULT_RETRY_POLICY.attempts).toBe(3);
    expect(slowDelayMs(DEFAULT_RETRY_POLICY, 1)).toBe(5 * 60_000);
    expect(slowDelayMs(DEFAULT_RETRY_POLICY, 10)).toBe(60 * 60_000);
  });
});

describe('sleep', () => {
  it('resolves after the delay', async () => {
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined();
  });

  it("rejects with the signal's reason when it aborts first, or was aborted before", async () => {
    const controller = new AbortController();
    const reason = new Error('closing');
    const waiting = sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(sleep(60_000, controller.signal)).rejects.toBe(reason);
  });
});
