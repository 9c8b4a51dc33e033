// Small JSON files inside an ISO (coreos/igninfo.json, kargs.json, features.json): read, parse,
// and check field types, turning every problem into a FormatError naming the image and file.
//
// Does: bounded read of one file, JSON.parse, typed field accessors.
// Does NOT: know what the fields mean (src/iso/ignition-area.ts, kargs-areas.ts do).

import { FormatError, withContext } from '../errors.js';
import type { IsoEntry, IsoFs } from './iso9660.js';

/** These files are a few hundred bytes; anything large is not what we think it is. */
const MAX_JSON_BYTES = 1024 * 1024;

export type JsonObject = Record<string, unknown>;

/** Describes a problem with one JSON file of one image. */
export class JsonFileContext {
  constructor(
    readonly imagePath: string,
    readonly isoPath: string,
  ) {}

  error(reason: string, cause?: unknown): FormatError {
    return new FormatError(
      `reading ${this.isoPath} of ${this.imagePath}: ${reason}`,
      { path: this.imagePath, file: this.isoPath },
      cause === undefined ? undefined : { cause },
    );
  }
}

/** Reads and parses a JSON object from `entry`. */
export async function readJsonObject(iso: IsoFs, entry: IsoEntry, ctx: JsonFileContext): Promise<JsonObject> {
  const bytes = await iso.readFile(entry, MAX_JSON_BYTES);
  const value: unknown = withContext(
    'malformed JSON',
    () => JSON.parse(bytes.toString('utf8')),
    (message, cause) => ctx.error(message, cause),
  );
  return asObject(value, 'top level', ctx);
}

export function asObject(value: unknown, field: string, ctx: JsonFileContext): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ctx.error(`malformed JSON: ${field} must be an object`);
  }
  return value as JsonObject;
}

export function requiredString(obj: JsonObject, field: string, ctx: JsonFileContext): string {
  const value = obj[field];
  if (typeof value !== 'string') throw ctx.error(`malformed JSON: "${field}" must be a string`);
  return value;
}

/** A non-negative safe integer, or undefined when the field is absent or null. */
export function optionalCount(obj: JsonObject, field: string, ctx: JsonFileContext): number | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw ctx.error(`malformed JSON: "${field}" must be a non-negative integer`);
  }
  return value;
}

export function requiredCount(obj: JsonObject, field: string, ctx: JsonFileContext): number {
  const value = optionalCount(obj, field, ctx);
  if (value === undefined) throw ctx.error(`malformed JSON: "${field}" is missing`);
  return value;
}

/** A string holding exactly one character, or undefined when absent or null. */
export function optionalChar(obj: JsonObject, field: string, ctx: JsonFileContext): string | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || [...value].length !== 1) {
    throw ctx.error(`malformed JSON: "${field}" must be a single character`);
  }
  return value;
}

export function requiredArray(obj: JsonObject, field: string, ctx: JsonFileContext): unknown[] {
  const value = obj[field];
  if (!Array.isArray(value)) throw ctx.error(`malformed JSON: "${field}" must be an array`);
  return value;
}
