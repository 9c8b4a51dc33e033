// Locating the Ignition embed area of a CoreOS live ISO.
//
// Order, as coreos-installer does (src/live/embed.rs, InitrdEmbedArea::for_iso), plus one older
// fallback it has since dropped:
//   1. coreos/igninfo.json (COREOS/IGNINFO.JSO): { "file": path, "offset"?: n, "length"?: n };
//      area = extent(file).offset + (offset ?? 0), length ?? (file length - offset).
//      On s390x `file` is images/cdboot.img and offset/length pick a slice of it.
//   2. images/ignition.img (IMAGES/IGNITION.IMG), the whole file.
//   3. the legacy `coreiso+` System Area header (src/iso/legacy-headers.ts); the area must lie
//      inside some file, which is recorded as the area's file.
// Checks: the area is non-empty and lies inside its file and inside the image.
// Does NOT: read or decode the area's contents (src/initrd does), or write it.

import { FormatError } from '../errors.js';
import type { IsoEntry, IsoFs } from './iso9660.js';
import { JsonFileContext, optionalCount, readJsonObject, requiredString } from './json-file.js';
import { readLegacyIgnitionHeader } from './legacy-headers.js';
import type { IgnitionArea } from './manifest.js';

export const IGNINFO_JSON_PATH = 'coreos/igninfo.json';
export const DEFAULT_IGNITION_IMG_PATH = 'images/ignition.img';

export async function locateIgnitionArea(iso: IsoFs): Promise<IgnitionArea> {
  const area = (await fromIgninfo(iso)) ?? (await fromIgnitionImg(iso)) ?? (await fromLegacyHeader(iso));
  if (area === undefined) {
    throw new FormatError(
      `locating Ignition embed area of ${iso.path}: no embed area (no ${IGNINFO_JSON_PATH}, no ${DEFAULT_IGNITION_IMG_PATH}, ` +
        'no coreiso+ header); not a CoreOS live ISO?',
      { path: iso.path },
    );
  }
  if (area.length === 0) {
    throw new FormatError(`locating Ignition embed area of ${iso.path}: the area in ${area.file} is empty`, {
      path: iso.path,
    });
  }
  iso.assertInside(area, `Ignition embed area in ${area.file}`);
  return area;
}

async function fromIgninfo(iso: IsoFs): Promise<IgnitionArea | undefined> {
  const infoEntry = await iso.lookupFile(IGNINFO_JSON_PATH);
  if (infoEntry === undefined) return undefined;
  const ctx = new JsonFileContext(iso.path, IGNINFO_JSON_PATH);
  const info = await readJsonObject(iso, infoEntry, ctx);
  const file = requiredString(info, 'file', ctx);
  const offset = optionalCount(info, 'offset', ctx) ?? 0;
  const length = optionalCount(info, 'length', ctx);
  const entry = await iso.lookupFile(file);
  if (entry === undefined) throw ctx.error(`Ignition embed area file ${file} does not exist in the image`);
  return sliceOf(entry, file, offset, length, (reason) => ctx.error(reason));
}

function sliceOf(
  entry: IsoEntry,
  file: string,
  offset: number,
  length: number | undefined,
  fail: (reason: string) => FormatError,
): IgnitionArea {
  if (offset > entry.length)
    throw fail(`Ignition area offset ${offset} is beyond the end of ${file} (${entry.length} bytes)`);
  const areaLength = length ?? entry.length - offset;
  if (offset + areaLength > entry.length) {
    throw fail(`Ignition area ${offset}+${areaLength} lies outside ${file}, which is ${entry.length} bytes`);
  }
  return { file, offset: entry.offset + offset, length: areaLength };
}

async function fromIgnitionImg(iso: IsoFs): Promise<IgnitionArea | undefined> {
  const entry = await iso.lookupFile(DEFAULT_IGNITION_IMG_PATH);
  if (entry === undefined) return undefined;
  return { file: DEFAULT_IGNITION_IMG_PATH, offset: entry.offset, length: entry.length };
}

async function fromLegacyHeader(iso: IsoFs): Promise<IgnitionArea | undefined> {
  const header = await readLegacyIgnitionHeader(iso);
  if (header === undefined) return undefined;
  iso.assertInside(header, 'Ignition embed area named by the coreiso+ header');
  const found = await iso.fileContaining(header);
  if (found === undefined) {
    throw new FormatError(
      `reading coreiso+ header of ${iso.path}: area ${header.offset}+${header.length} does not lie inside any file of the image`,
      { path: iso.path },
    );
  }
  return { file: found.path, offset: header.offset, length: header.length };
}
