import { describe, expect, it } from 'vitest';
import { evaluatePreconditions, type PreconditionDecision, type Validators } from './preconditions.js';

const VALIDATORS: Validators = { etag: '"v1-abc"', lastModifiedSeconds: Date.UTC(2024, 4, 17, 10, 20, 30) / 1000 };
const LM = 'Fri, 17 May 2024 10:20:30 GMT';
const EARLIER = 'Fri, 17 May 2024 10:20:29 GMT';
const LATER = 'Fri, 17 May 2024 10:20:31 GMT';

describe('evaluatePreconditions (RFC 9110 §13.2.2)', () => {
  it.each<[string, Record<string, string>, PreconditionDecision]>([
    ['no conditionals', {}, 'proceed'],
    ['If-Match with the ETag', { 'if-match': '"v1-abc"' }, 'proceed'],
    ['If-Match *', { 'if-match': '*' }, 'proceed'],
    ['If-Match with another ETag', { 'if-match': '"other"' }, 'precondition-failed'],
    ['If-Match with the weak form', { 'if-match': 'W/"v1-abc"' }, 'precondition-failed'],
    ['If-Match with garbage', { 'if-match': 'v1-abc' }, 'precondition-failed'],
    ['If-Unmodified-Since earlier', { 'if-unmodified-since': EARLIER }, 'precondition-failed'],
    ['If-Unmodified-Since the same second', { 'if-unmodified-since': LM }, 'proceed'],
    ['If-Unmodified-Since later', { 'if-unmodified-since': LATER }, 'proceed'],
    ['If-Unmodified-Since garbage', { 'if-unmodified-since': 'garbage' }, 'proceed'],
    [
      'If-Unmodified-Since ignored under If-Match',
      { 'if-match': '"v1-abc"', 'if-unmodified-since': EARLIER },
      'proceed',
    ],
    ['If-None-Match with the ETag', { 'if-none-match': '"v1-abc"' }, 'not-modified'],
    ['If-None-Match *', { 'if-none-match': '*' }, 'not-modified'],
    ['If-None-Match with the weak form', { 'if-none-match': 'W/"v1-abc"' }, 'not-modified'],
    ['If-None-Match with others', { 'if-none-match': '"other", W/"v2"' }, 'proceed'],
    ['If-Modified-Since the same second', { 'if-modified-since': LM }, 'not-modified'],
    ['If-Modified-Since later', { 'if-modified-since': LATER }, 'not-modified'],
    ['If-Modified-Since earlier', { 'if-modified-since': EARLIER }, 'proceed'],
    ['If-Modified-Since garbage', { 'if-modified-since': 'not a date' }, 'proceed'],
    [
      'If-Modified-Since ignored under If-None-Match',
      { 'if-none-match': '"other"', 'if-modified-since': LATER },
      'proceed',
    ],
    [
      'If-Match failing before If-None-Match',
      { 'if-match': '"other"', 'if-none-match': '"v1-abc"' },
      'precondition-failed',
    ],
    ['If-Match passing, then If-None-Match', { 'if-match': '"v1-abc"', 'if-none-match': '"v1-abc"' }, 'not-modified'],
    [
      'preconditions before Range',
      { 'if-match': '"other"', range: 'bytes=0-', 'if-range': '"old"' },
      'precondition-failed',
    ],
    ['If-Range with the strong ETag', { range: 'bytes=0-9', 'if-range': '"v1-abc"' }, 'proceed'],
    ['If-Range with the date', { range: 'bytes=0-9', 'if-range': LM }, 'proceed'],
    ['If-Range with another ETag', { range: 'bytes=0-9', 'if-range': '"old"' }, 'ignore-range'],
    ['If-Range with a weak ETag', { range: 'bytes=0-9', 'if-range': 'W/"v1-abc"' }, 'ignore-range'],
    ['If-Range with a later date', { range: 'bytes=0-9', 'if-range': LATER }, 'ignore-range'],
    ['If-Range with garbage', { range: 'bytes=0-9', 'if-range': 'nope' }, 'ignore-range'],
    ['If-Range without Range', { 'if-range': '"old"' }, 'proceed'],
    [
      'If-None-Match wins over a stale If-Range',
      { 'if-none-match': '*', range: 'bytes=0-9', 'if-range': '"old"' },
      'not-modified',
    ],
  ])('%s → %s', (_what, headers, decision) => {
    expect(evaluatePreconditions(headers, VALIDATORS)).toBe(decision);
  });

  it('ignores date conditionals, and never matches a date If-Range, without a modification time', () => {
    const undated: Validators = { etag: '"v1-abc"', lastModifiedSeconds: undefined };
    expect(evaluatePreconditions({ 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' }, undated)).toBe('proceed');
    expect(evaluatePreconditions({ 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' }, undated)).toBe('proceed');
    expect(evaluatePreconditions({ range: 'bytes=0-9', 'if-range': LM }, undated)).toBe('ignore-range');
    expect(evaluatePreconditions({ range: 'bytes=0-9', 'if-range': '"v1-abc"' }, undated)).toBe('proceed');
  });

  it('treats an If-Range given as an array as not matching', () => {
    expect(
      evaluatePreconditions({ range: 'bytes=0-9', 'if-range': ['"v1-abc"'] as unknown as string }, VALIDATORS),
    ).toBe('ignore-range');
  });
});
