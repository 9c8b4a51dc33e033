// curlReadPlan: the Range GETs of qemu's curl driver (block/curl.c) as the virtual guest sends them.
import { describe, expect, it } from 'vitest';
import { CURL_READAHEAD_BYTES, curlReadPlan } from './curl-read-plan.js';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('curlReadPlan', () => {
  it('reads the volume descriptors, then consecutive 320 KiB GETs (64 KiB read + 256 KiB readahead) up to maxBytes', () => {
    const plan = curlReadPlan(12 * MiB, { maxBytes: MiB });
    expect(plan.slice(0, 2)).toEqual([
      { start: 34816, end: 34816 + 2 * KiB + CURL_READAHEAD_BYTES - 1 },
      { start: 32768, end: 32768 + 2 * KiB + CURL_READAHEAD_BYTES - 1 },
    ]);
    expect(plan.slice(2).map((r) => r.start)).toEqual([0, 320 * KiB, 640 * KiB, 960 * KiB]);
    expect(plan.slice(2).every((r) => r.end - r.start + 1 === 320 * KiB)).toBe(true);
  });

  it('with extents, reads each from its first sector and sends a GET only for a piece the last reply does not hold', () => {
    const size = 40 * MiB;
    const plan = curlReadPlan(size, {
      extents: [
        { offset: 1 * MiB + 100, length: 700 * KiB }, // starts mid-sector: read from the sector
        { offset: 1 * MiB + 900 * KiB, length: 10 * KiB }, // inside the previous reply: no GET
        { offset: 20 * MiB, length: 64 * KiB }, // one piece
      ],
    }).slice(2);
    expect(plan).toEqual([
      { start: MiB, end: MiB + 320 * KiB - 1 },
      { start: MiB + 320 * KiB, end: MiB + 640 * KiB - 1 },
      // the last piece is the file's tail (60 KiB + 100 bytes, to the sector: 62 KiB) + readahead
      { start: MiB + 640 * KiB, end: MiB + 958 * KiB - 1 },
      { start: 20 * MiB, end: 20 * MiB + 320 * KiB - 1 },
    ]);
  });

  it('never asks past the end of the image', () => {
    const size = 5 * MiB + 3000;
    const plan = curlReadPlan(size, { extents: [{ offset: 5 * MiB, length: 3000 }] });
    expect(plan.at(-1)).toEqual({ start: 5 * MiB, end: size - 1 });
    expect(curlReadPlan(size).every((r) => r.end < size)).toBe(true);
  });
});
