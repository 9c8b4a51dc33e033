import { describe, expect, it } from 'vitest';
import { ifRangeMatches, matchEntityTag } from './entity-tag.js';

describe('matchEntityTag', () => {
  const etag = '"abc"';

  it('matches * against any representation', () => {
    expect(matchEntityTag('*', etag, 'strong')).toBe(true);
    expect(matchEntityTag(' * ', etag, 'weak')).toBe(true);
    expect(matchEntityTag('*', 'W/"abc"', 'strong')).toBe(true);
  });

  it('matches members of a list', () => {
    expect(matchEntityTag('"abc"', etag, 'strong')).toBe(true);
    expect(matchEntityTag('"x", "abc"', etag, 'strong')).toBe(true);
    expect(matchEntityTag('"x","y" ,\t"abc" ', etag, 'strong')).toBe(true);
    expect(matchEntityTag('"x", "y"', etag, 'strong')).toBe(false);
    expect(matchEntityTag('"ab"', etag, 'strong')).toBe(false);
    expect(matchEntityTag('"abcd"', etag, 'strong')).toBe(false);
    expect(matchEntityTag('"ABC"', etag, 'weak')).toBe(false);
    expect(matchEntityTag('', etag, 'weak')).toBe(false);
  });

  it('distinguishes strong and weak comparison', () => {
    expect(matchEntityTag('W/"abc"', etag, 'strong')).toBe(false);
    expect(matchEntityTag('W/"abc"', etag, 'weak')).toBe(true);
    expect(matchEntityTag('"abc"', 'W/"abc"', 'weak')).toBe(true);
    expect(matchEntityTag('"abc"', 'W/"abc"', 'strong')).toBe(false);
    expect(matchEntityTag('"x", W/"abc"', etag, 'weak')).toBe(true);
  });

  it('stops at malformed members', () => {
    expect(matchEntityTag('abc', etag, 'weak')).toBe(false);
    expect(matchEntityTag('"abc', etag, 'weak')).toBe(false);
    expect(matchEntityTag('"x" junk, "abc"', etag, 'weak')).toBe(false);
    expect(matchEntityTag('"abc" junk', etag, 'weak')).toBe(true); // matched before the junk
    expect(matchEntityTag('*, "abc"', etag, 'weak')).toBe(false);
  });
});

describe('ifRangeMatches', () => {
  const etag = '"v1"';
  const lm = Date.UTC(2024, 0, 2, 3, 4, 5) / 1000;

  it('needs a strong, exact entity tag', () => {
    expect(ifRangeMatches('"v1"', etag, lm)).toBe(true);
    expect(ifRangeMatches(' "v1" ', etag, lm)).toBe(true);
    expect(ifRangeMatches('"v2"', etag, lm)).toBe(false);
    expect(ifRangeMatches('W/"v1"', etag, lm)).toBe(false);
    expect(ifRangeMatches('"v1", "v2"', etag, lm)).toBe(false);
    expect(ifRangeMatches('"v1"', 'W/"v1"', lm)).toBe(false);
  });

  it('needs a date exactly equal to Last-Modified', () => {
    expect(ifRangeMatches('Tue, 02 Jan 2024 03:04:05 GMT', etag, lm)).toBe(true);
    expect(ifRangeMatches('Tue, 02 Jan 2024 03:04:06 GMT', etag, lm)).toBe(false);
    expect(ifRangeMatches('Tue, 02 Jan 2024 03:04:04 GMT', etag, lm)).toBe(false);
    expect(ifRangeMatches('Tue, 02 Jan 2024 03:04:05 GMT', etag, undefined)).toBe(false);
    expect(ifRangeMatches('yesterday', etag, lm)).toBe(false);
    expect(ifRangeMatches('', etag, lm)).toBe(false);
  });
});
