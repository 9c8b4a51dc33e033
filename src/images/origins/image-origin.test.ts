// Which failed writes lose the `.part`, per origin policy, as a table (losesPart): the rule the
// pipeline (src/images/loader/obtain-iso.ts) applies once for every origin. Pure.
import { describe, expect, it } from 'vitest';

import { diskFullError } from '../load-failure/disk-full.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { type PartDiscard, losesPart } from './image-origin.js';

const coded = (code: string): Error => Object.assign(new Error(`write failed: ${code}`), { code });

const FAILURES: Record<string, unknown> = {
  'a transient fault (reset)': coded('ECONNRESET'),
  'a slow fault (HTTP 404)': new ImageLoadError('upstream', 'not found', 'slow'),
  'wrong bytes (never)': new ImageLoadError('format', 'sha256 differs', 'never'),
  'a budget refusal (on-demand)': new ImageLoadError('unavailable', 'budget full', 'on-demand'),
  'a full disk (ENOSPC, wrapped)': new Error('copy failed', { cause: coded('ENOSPC') }),
  // the downloader removes its `.part` itself and reports the full disk without the code
  "the downloader's full-disk error": diskFullError(coded('ENOSPC'), 'ENOSPC', '/d/images/x.iso.part', 'x'),
};

describe('losesPart: table', () => {
  it.each<[PartDiscard, string, boolean, boolean]>([
    // a block device copy cannot resume: every failure loses it, also a stop of the store
    ['any-failure', 'a transient fault (reset)', false, true],
    ['any-failure', 'a slow fault (HTTP 404)', false, true],
    ['any-failure', 'wrong bytes (never)', false, true],
    ['any-failure', 'a full disk (ENOSPC, wrapped)', false, true],
    ['any-failure', 'a transient fault (reset)', true, true],
    // a registry pull, a zip extraction: wrong bytes and a full disk lose it; the rest resumes
    ['content-failure', 'a transient fault (reset)', false, false],
    ['content-failure', 'a slow fault (HTTP 404)', false, false],
    ['content-failure', 'a budget refusal (on-demand)', false, false],
    ['content-failure', 'wrong bytes (never)', false, true],
    ['content-failure', 'a full disk (ENOSPC, wrapped)', false, true],
    ['content-failure', "the downloader's full-disk error", false, false],
    ['content-failure', 'wrong bytes (never)', true, false],
    ['content-failure', 'a full disk (ENOSPC, wrapped)', true, false],
    // a download: only a full disk the downloader did not handle itself
    ['full-disk', 'a transient fault (reset)', false, false],
    ['full-disk', 'wrong bytes (never)', false, false],
    ['full-disk', 'a full disk (ENOSPC, wrapped)', false, true],
    ['full-disk', "the downloader's full-disk error", false, false],
    ['full-disk', 'a full disk (ENOSPC, wrapped)', true, false],
  ])('%s, %s, store closing: %s → loses the .part: %s', (policy, failure, aborted, expected) => {
    expect(losesPart(policy, FAILURES[failure], aborted)).toBe(expected);
  });
});
