// Locating the kernel-argument embed areas of a CoreOS live ISO, from `coreos/kargs.json`
// (COREOS/KARGS.JSO) or, for ISOs built before it existed, the legacy `coreKarg` header.
//
// kargs.json, as coreos-installer reads it (src/live/embed.rs, KargEmbedInfo):
//   { "default": string, "size": number,
//     "files": [ { "path": string, "offset": number, "pad"?: char, "end"?: char } ] }
// `pad` (default `#`) and `end` (default `\n`) live on each `files[]` entry, not at the top level.
// Area i starts at extent(files[i].path) + files[i].offset and is `size` bytes long.
// Checks: size <= 2048 (coreos-installer's sanity limit), default kargs fit in size - 1 bytes,
// at least one area, every area inside its file, pad/end single ASCII characters.
// Does: build the KargsAreas part of the manifest (locations sorted by offset).
// Does NOT: check that the areas currently agree (src/iso/read-embed-areas.ts, called by
// live-layout.ts), or encode new kargs.

import { FormatError } from '../errors.js';
import type { IsoFs } from './iso9660.js';
import {
  asObject,
  JsonFileContext,
  optionalChar,
  readJsonObject,
  requiredArray,
  requiredCount,
  requiredString,
  type JsonObject,
} from './json-file.js';
import { readLegacyKargsHeader } from './legacy-headers.js';
import type { KargsAreas, KargsLocation } from './manifest.js';
import { decodeKargsArea } from './kargs-codec.js';

export const KARGS_JSON_PATH = 'coreos/kargs.json';
/** coreos-installer refuses larger areas (COREOS_KARG_EMBED_AREA_MAX_SIZE). */
export const MAX_KARGS_AREA_SIZE = 2048;
const DEFAULT_PAD = '#';
const DEFAULT_END = '\n';

/** The image's kargs areas, or undefined when it has neither kargs.json nor a coreKarg header. */
export async function locateKargsAreas(iso: IsoFs): Promise<KargsAreas | undefined> {
  const entry = await iso.lookupFile(KARGS_JSON_PATH);
  if (entry !== undefined) {
    const ctx = new JsonFileContext(iso.path, KARGS_JSON_PATH);
    return kargsFromJson(iso, await readJsonObject(iso, entry, ctx), ctx);
  }
  return kargsFromLegacyHeader(iso);
}

async function kargsFromJson(iso: IsoFs, json: JsonObject, ctx: JsonFileContext): Promise<KargsAreas> {
  const defaultKargs = requiredString(json, 'default', ctx);
  const size = requiredCount(json, 'size', ctx);
  checkSizes(size, defaultKargs, (reason) => ctx.error(reason));
  const files = requiredArray(json, 'files', ctx);
  if (files.length === 0) throw ctx.error('no kargs embed areas: "files" is empty');
  const locations: KargsLocation[] = [];
  for (const [i, raw] of files.entries()) {
    locations.push(await locationFromJson(iso, asObject(raw, `files[${i}]`, ctx), size, ctx));
  }
  return buildAreas(defaultKargs, size, locations, 'kargs.json');
}

async function locationFromJson(
  iso: IsoFs,
  file: JsonObject,
  size: number,
  ctx: JsonFileContext,
): Promise<KargsLocation> {
  const path = requiredString(file, 'path', ctx);
  const offsetInFile = requiredCount(file, 'offset', ctx);
  const pad = optionalChar(file, 'pad', ctx) ?? DEFAULT_PAD;
  const end = optionalChar(file, 'end', ctx) ?? DEFAULT_END;
  for (const [name, c] of [
    ['pad', pad],
    ['end', end],
  ] as const) {
    if (c.charCodeAt(0) > 0x7f) throw ctx.error(`${name} character of ${path} is not ASCII, which is not supported`);
  }
  const entry = await iso.lookupFile(path);
  if (entry === undefined) throw ctx.error(`kargs area file ${path} does not exist in the image`);
  if (offsetInFile + size > entry.length) {
    throw ctx.error(`kargs area ${offsetInFile}+${size} lies outside ${path}, which is ${entry.length} bytes`);
  }
  const location: KargsLocation = { file: path, offset: entry.offset + offsetInFile, pad, end };
  iso.assertInside({ offset: location.offset, length: size }, `kargs area in ${path}`);
  return location;
}

async function kargsFromLegacyHeader(iso: IsoFs): Promise<KargsAreas | undefined> {
  const header = await readLegacyKargsHeader(iso);
  if (header === undefined) return undefined;
  const fail = (reason: string): FormatError =>
    new FormatError(`reading coreKarg header of ${iso.path}: ${reason}`, { path: iso.path });
  const size = header.areaSize;
  if (header.areaOffsets.length === 0) throw fail('no kargs embed areas listed');
  const defaultWhere = `default kargs at offset ${header.defaultOffset} of ${iso.path}`;
  const defaultBytes = await iso.readAt(header.defaultOffset, size, defaultWhere);
  const defaultKargs = decodeKargsArea(defaultBytes, DEFAULT_PAD, DEFAULT_END, defaultWhere);
  checkSizes(size, defaultKargs, (reason) => fail(reason));
  const locations: KargsLocation[] = [];
  for (const offset of header.areaOffsets) {
    const found = await iso.fileContaining({ offset, length: size });
    if (found === undefined) throw fail(`kargs area ${offset}+${size} does not lie inside any file of the image`);
    locations.push({ file: found.path, offset, pad: DEFAULT_PAD, end: DEFAULT_END });
  }
  return buildAreas(defaultKargs, size, locations, 'legacy-header');
}

function checkSizes(size: number, defaultKargs: string, fail: (reason: string) => FormatError): void {
  if (size > MAX_KARGS_AREA_SIZE)
    throw fail(`kargs embed area size ${size} is larger than the ${MAX_KARGS_AREA_SIZE}-byte limit`);
  if (size < 1) throw fail('kargs embed area size is 0');
  const defaultLength = Buffer.byteLength(defaultKargs, 'utf8');
  if (defaultLength > size - 1) {
    throw fail(
      `default kargs are ${defaultLength} bytes, more than the ${size - 1} that fit in the ${size}-byte areas`,
    );
  }
}

function buildAreas(
  defaultKargs: string,
  size: number,
  locations: KargsLocation[],
  source: KargsAreas['source'],
): KargsAreas {
  const sorted = [...locations].sort((a, b) => a.offset - b.offset);
  const first = sorted[0];
  return {
    default: defaultKargs,
    size,
    pad: first?.pad ?? DEFAULT_PAD,
    end: first?.end ?? DEFAULT_END,
    locations: sorted,
    source,
  };
}
