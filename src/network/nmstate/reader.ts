// Typed reads from a parsed YAML value, each naming its path when the value is wrong.
//
// Does: check that a value is a mapping with only known keys (an unknown key is refused with
// its path, never dropped), a bounded list, a boolean, an integer in range (nmstate accepts
// numbers written as strings, e.g. `miimon: '100'`), a string, or one of a set of words.
// Does not: know what the keys mean (the parse-* modules do) or throw anything but
// NetworkConfigError for a path inside network_yaml.
import { yamlError } from './errors.js';

export type Mapping = Record<string, unknown>;

/** `interfaces[2]` + `ipv4` → `interfaces[2].ipv4`. */
export const child = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
/** `interfaces` + 2 → `interfaces[2]`. */
export const item = (path: string, index: number): string => `${path}[${index}]`;

export function isMapping(v: unknown): v is Mapping {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A mapping whose keys are all in `allowed`. */
export function mapping(v: unknown, path: string, allowed: readonly string[]): Mapping {
  if (!isMapping(v)) yamlError(path, 'must be a mapping');
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key)) {
      yamlError(child(path, key), `is not supported (supported here: ${allowed.join(', ')})`);
    }
  }
  return v;
}

/** A list of at most `max` items (`null` or absent is empty). */
export function list(v: unknown, path: string, max: number): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) yamlError(path, 'must be a list');
  if (v.length > max) yamlError(path, `has ${v.length} items; at most ${max} are accepted`);
  return v;
}

export function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') yamlError(path, 'must be true or false');
  return v;
}

export function optionalBool(v: unknown, path: string): boolean | undefined {
  return v === undefined || v === null ? undefined : bool(v, path);
}

/** An integer from `min` to `max`, given as a number or as decimal digits in a string. */
export function integer(v: unknown, path: string, min: number, max: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^(?:0|[1-9]\d{0,15})$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) yamlError(path, `must be an integer from ${min} to ${max}`);
  return n;
}

export function optionalInteger(v: unknown, path: string, min: number, max: number): number | undefined {
  return v === undefined || v === null ? undefined : integer(v, path, min, max);
}

export function string(v: unknown, path: string): string {
  if (typeof v !== 'string') yamlError(path, 'must be a string');
  return v;
}

/** One of `words` (case-sensitive, as nmstate spells them). */
export function oneOf<T extends string>(v: unknown, path: string, words: readonly T[]): T {
  if (typeof v !== 'string' || !(words as readonly string[]).includes(v)) {
    yamlError(path, `must be one of ${words.join(', ')}`);
  }
  return v as T;
}
