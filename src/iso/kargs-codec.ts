// Kernel-argument embed areas as bytes: decoding what an area holds and encoding new kargs into
// the exact bytes of one area. Pure functions over buffers and strings.
//
// Rules follow coreos-installer src/live/embed.rs (KargEmbedAreas::parse and ::set_kargs):
// - decoding: the area as UTF-8 (invalid UTF-8 is an error), trailing `pad` characters removed,
//   then trailing `end` characters, then surrounding whitespace.
// - encoding: kargs are trimmed; they must be shorter than the area (at most size - 1 bytes, so the
//   `end` character fits); the area is `kargs + end` followed by `pad` up to `size` bytes.
// `pad` and `end` come per file from kargs.json (`files[].pad`/`files[].end`, default `#`/`\n`).
// Does: encode/decode one area's bytes.
// Does NOT: read images (src/iso/read-embed-areas.ts), locate the areas (src/iso/kargs-areas.ts),
// decide which kargs to write, or patch files (src/splice serves the encoded bytes as patches).

import { FormatError, PayloadTooLargeError } from '../errors.js';
import type { KargsAreas, KargsLocation } from './manifest.js';

const WHITE_SPACE = /^\p{White_Space}$/u;

/**
 * Trims Unicode White_Space at both ends, like Rust's `str::trim` (a character at a time from
 * each end: `\p{White_Space}+$` backtracked quadratically over long inner runs of spaces).
 */
export function trimKargs(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && WHITE_SPACE.test(s[start]!)) start++;
  while (end > start && WHITE_SPACE.test(s[end - 1]!)) end--;
  return s.slice(start, end);
}

function trimEndAll(s: string, c: string): string {
  let out = s;
  while (c.length > 0 && out.endsWith(c)) out = out.slice(0, out.length - c.length);
  return out;
}

/** The fill and terminator characters used at one location. */
export function locationChars(areas: KargsAreas, location?: KargsLocation): { pad: string; end: string } {
  return { pad: location?.pad ?? areas.pad, end: location?.end ?? areas.end };
}

/** The kargs an area currently holds. `where` names the area in the error for invalid UTF-8. */
export function decodeKargsArea(bytes: Buffer, pad: string, end: string, where = 'kargs area'): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (err) {
    throw new FormatError(`decoding ${where}: invalid UTF-8`, {}, { cause: err });
  }
  return trimKargs(trimEndAll(trimEndAll(text, pad), end));
}

/** One ASCII character as a byte; kargs.json parsing rejects anything else. */
function asciiByte(c: string, what: string): number {
  const code = c.charCodeAt(0);
  if (c.length !== 1 || code > 0x7f)
    throw new FormatError(`kargs ${what} character ${JSON.stringify(c)} is not a single ASCII character`);
  return code;
}

/**
 * The exact bytes of the area at `location` (default: the areas' own pad/end) holding `kargs`:
 * trimmed kargs, the `end` character, then `pad` up to `areas.size` bytes.
 * PayloadTooLargeError when the trimmed kargs plus terminator exceed the area.
 */
export function encodeKargsArea(kargs: string, areas: KargsAreas, location?: KargsLocation): Buffer {
  const { pad, end } = locationChars(areas, location);
  const padByte = asciiByte(pad, 'pad');
  asciiByte(end, 'end');
  const text = trimKargs(kargs);
  const length = Buffer.byteLength(text, 'utf8');
  if (length >= areas.size) {
    throw new PayloadTooLargeError('kernel arguments plus terminator', length + 1, areas.size, {
      areaFile: location?.file ?? areas.locations[0]?.file,
    });
  }
  const area = Buffer.alloc(areas.size, padByte);
  area.write(text + end, 0, 'utf8');
  return area;
}
