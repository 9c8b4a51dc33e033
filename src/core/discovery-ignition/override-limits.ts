// The bounds of an InfraEnv's `ignition_config_override`, checked on its JSON text before it
// is parsed, so that no override can make the core work for long or overflow its stack.
//
// Does: one linear pass over the text that measures its size in bytes, its nesting depth and
// its number of list entries, refusing (naming the limit) an override beyond any of them:
// 413 for the size, 400 for the depth and the entries. Does not: parse or validate the
// config (validate.ts), or bound what the whole discovery config compresses to (the embed
// area does, infraenv/service.ts).
import { BadRequestError, PayloadTooLargeError } from '../../errors.js';

/**
 * An override's JSON text, in bytes. Its gzip'd archive must fit the ISO's 256 KiB embed area
 * anyway (upstream's IgnitionImageSizePadding), which Ignition JSON reaches at roughly 1 MiB;
 * the bound keeps a parse, a merge and a render of the largest accepted one a few milliseconds
 * each (see bench/README.md "Large Ignition overrides and /live").
 */
export const MAX_OVERRIDE_BYTES = 1024 * 1024;
/**
 * Nesting of objects and lists. Ignition's deepest field is 8 levels down
 * (ignition.security.tls.certificateAuthorities[].httpHeaders[].name); deeper is not a
 * config, and rendering it would recurse without end.
 */
export const MAX_OVERRIDE_DEPTH = 16;
/**
 * List entries of every list in the override together (files, directories, links, units,
 * dropins, users, keys, headers, …). A discovery image needs a handful; this leaves room for
 * thousands while keeping the merge and the validation bounded.
 */
export const MAX_OVERRIDE_ENTRIES = 10_000;

export interface OverrideMeasure {
  bytes: number;
  depth: number;
  entries: number;
}

export const OVERRIDE_FIELD = 'ignition_config_override';

/** The size check alone (a 413 naming the limit); returns the size in bytes. */
export function checkOverrideSize(text: string, field = OVERRIDE_FIELD): number {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_OVERRIDE_BYTES) {
    throw new PayloadTooLargeError(field, bytes, MAX_OVERRIDE_BYTES, {
      field,
      limit: 'MAX_OVERRIDE_BYTES',
    });
  }
  return bytes;
}

/** Measures the text in one pass (strings skipped, escapes honoured); throws past any limit. */
export function checkOverrideBounds(text: string, field = OVERRIDE_FIELD): OverrideMeasure {
  const bytes = checkOverrideSize(text, field);
  // Strings are skipped with indexOf (native speed: a megabyte-long data URL costs one call); the
  // loop itself sees only what lies between strings. containers[i] is true for a list.
  const containers: boolean[] = [];
  let firstInList = false;
  let depth = 0;
  let entries = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (firstInList && c !== 0x5d /* ] */) entries++;
    firstInList = false;
    if (c === 0x22 /* " */) {
      i = closingQuote(text, i);
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      containers.push(c === 0x5b);
      firstInList = c === 0x5b;
      if (containers.length > depth) depth = containers.length;
      if (depth > MAX_OVERRIDE_DEPTH) {
        throw new BadRequestError(`${field} is nested deeper than ${MAX_OVERRIDE_DEPTH} levels`, {
          field,
          limit: 'MAX_OVERRIDE_DEPTH',
        });
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) containers.pop();
    else if (c === 0x2c /* , */ && containers[containers.length - 1] === true) entries++;
    if (entries > MAX_OVERRIDE_ENTRIES) {
      throw new BadRequestError(`${field} has more than ${MAX_OVERRIDE_ENTRIES} list entries`, {
        field,
        limit: 'MAX_OVERRIDE_ENTRIES',
      });
    }
  }
  return { bytes, depth, entries };
}

/** The index of the quote closing the string opened at `open` (an odd run of backslashes escapes one). */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at > 0) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length; // unterminated: JSON.parse refuses it next
}
