// parseEventRateLimits (upstream's EVENT_RATE_LIMITS) as a table, with the service's own duration
// parser: upstream's defaults kept unless overridden, unknown names accepted, and a bad document
// refused with a message naming the variable.
import { describe, expect, it } from 'vitest';

import { parseDuration } from '../duration.js';
import { parseEventRateLimits, UPSTREAM_NAME_INTERVALS_MS } from './event-limits.js';

const HOUR = 3_600_000;

describe('parseEventRateLimits: table', () => {
  it.each<[string, string | undefined, Record<string, number>]>([
    ['unset: upstream’s defaults', undefined, UPSTREAM_NAME_INTERVALS_MS],
    ['blank: upstream’s defaults', '  ', UPSTREAM_NAME_INTERVALS_MS],
    ['an empty object: upstream’s defaults', '{}', UPSTREAM_NAME_INTERVALS_MS],
    [
      'a default overridden',
      '{"upgrade_agent_failed":"2h"}',
      { ...UPSTREAM_NAME_INTERVALS_MS, upgrade_agent_failed: 2 * HOUR },
    ],
    [
      'a name of its own added',
      '{"host_registration_failed":"1m30s"}',
      { ...UPSTREAM_NAME_INTERVALS_MS, host_registration_failed: 90_000 },
    ],
    ['milliseconds', '{"x":"500ms"}', { ...UPSTREAM_NAME_INTERVALS_MS, x: 500 }],
  ])('%s', (_name, text, expected) => {
    expect(parseEventRateLimits(text, parseDuration)).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ['not JSON', '{"x":', 'failed to parse EVENT_RATE_LIMITS json: it is not valid JSON'],
    ['a list', '["2h"]', 'failed to parse EVENT_RATE_LIMITS json: want an object of event names to durations'],
    ['null', 'null', 'failed to parse EVENT_RATE_LIMITS json: want an object of event names to durations'],
    ['a number of milliseconds', '{"x":1000}', 'invalid duration for event "x" in EVENT_RATE_LIMITS: 1000'],
    ['a duration without unit', '{"x":"10"}', 'invalid duration for event "x" in EVENT_RATE_LIMITS: "10"'],
    ['an unknown unit', '{"x":"2d"}', 'invalid duration for event "x" in EVENT_RATE_LIMITS: "2d"'],
  ])('%s: refused', (_name, text, message) => {
    expect(() => parseEventRateLimits(text, parseDuration)).toThrow(message);
  });

  it('never changes upstream’s defaults themselves', () => {
    parseEventRateLimits('{"upgrade_agent_failed":"1s"}', parseDuration);
    expect(UPSTREAM_NAME_INTERVALS_MS.upgrade_agent_failed).toBe(HOUR);
  });
});
