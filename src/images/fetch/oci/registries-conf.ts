// containers-registries.conf(5) version 2, as REGISTRIES_CONF_FILE gives it: `[[registry]]`
// tables with `prefix`, `location`, `insecure`, `blocked`, `mirror-by-digest-only` and
// `[[registry.mirror]]` tables with `location`, `insecure` and `pull-from-mirror`
// (`all` | `digest-only` | `tag-only`). Validated the way containers-image validates it
// (sysregistriesv2): a prefix defaults to the location; a wildcard prefix `*.example.com` may
// leave the location empty; locations carry no URL scheme (a trailing `/` is dropped);
// `pull-from-mirror` only on mirrors and never together with `mirror-by-digest-only`; one
// location must not be both insecure and secure, or blocked and not; of several tables with
// the same prefix the first wins.
//
// Keys that only matter to short-name resolution or credential helpers
// (`unqualified-search-registries`, `short-name-mode`, `credential-helpers`, `[aliases]`,
// `additional-layer-store-auth-helper`) are accepted and ignored: bootsmith only pulls fully
// qualified references. The v1 format (`[registries.search]` …) and unknown keys are refused
// with the line that holds them, so a typo never silently turns a mirror off.
//
// Does: parse and validate (pure). Does not: resolve references (mirror-resolution.ts) or
// render files for hosts (registries-conf-render.ts). Next: mirror-resolution.ts.
import { BadRequestError } from '../../../errors.js';
import { checkRegistry } from '../../image-reference.js';
import { type TomlEntry, TomlTable, type TomlValue, parseTomlSubset } from './toml-subset.js';

export type PullFromMirror = 'all' | 'digest-only' | 'tag-only';

export interface MirrorEndpoint {
  location: string;
  insecure: boolean;
  /** Unset means `all` (unless the registry says mirror-by-digest-only). */
  pullFromMirror: PullFromMirror | undefined;
}

export interface RegistryRule {
  /** What image names are matched against: `host[:port][/namespace…]` or `*.domain`. */
  prefix: string;
  /** Where the prefix-rooted namespace really lives; '' only with a wildcard prefix (no rewrite). */
  location: string;
  insecure: boolean;
  blocked: boolean;
  mirrorByDigestOnly: boolean;
  mirrors: MirrorEndpoint[];
}

export interface RegistriesConf {
  /** In file order, one rule per prefix. */
  registries: RegistryRule[];
}

const IGNORED_TOP_LEVEL = new Set([
  'unqualified-search-registries',
  'short-name-mode',
  'credential-helpers',
  'aliases',
  'additional-layer-store-auth-helper',
]);
const REGISTRY_KEYS = new Set([
  'prefix',
  'location',
  'insecure',
  'blocked',
  'mirror-by-digest-only',
  'mirror',
  'pull-from-mirror',
]);
const MIRROR_KEYS = new Set(['location', 'insecure', 'pull-from-mirror']);
const PULL_FROM_MIRROR: readonly PullFromMirror[] = ['all', 'digest-only', 'tag-only'];

/** Parses and validates a registries.conf; `file` names it in errors. */
export function parseRegistriesConf(text: string, file: string): RegistriesConf {
  const doc = parseTomlSubset(text, file);
  const fail = (line: number, why: string): never => {
    throw new BadRequestError(`${file} line ${line}: ${why}`, { file, line });
  };
  for (const [key, entry] of doc.entries) {
    if (key === 'registry') continue;
    if (key === 'registries')
      fail(entry.line, 'this is the version 1 format ([registries.search] …); write version 2 [[registry]] tables');
    if (!IGNORED_TOP_LEVEL.has(key)) fail(entry.line, `unknown setting ${JSON.stringify(key)}`);
  }
  const tables = tablesOf(doc.entries.get('registry'), 'registry', fail);
  const rules: RegistryRule[] = tables.map((table) => registryRule(table, fail));

  // one location cannot be both insecure and secure, or both blocked and not (as containers-image checks)
  const seen = new Map<string, { rule: RegistryRule; line: number }>();
  for (const [i, rule] of rules.entries()) {
    const key = rule.location === '' ? rule.prefix : rule.location;
    const first = seen.get(key);
    const line = tables[i]!.line;
    if (!first) {
      seen.set(key, { rule, line });
      continue;
    }
    if (first.rule.insecure !== rule.insecure)
      fail(
        line,
        `registry ${JSON.stringify(key)} is defined again with a different insecure setting (line ${first.line})`,
      );
    if (first.rule.blocked !== rule.blocked)
      fail(
        line,
        `registry ${JSON.stringify(key)} is defined again with a different blocked setting (line ${first.line})`,
      );
  }
  const byPrefix = new Map<string, RegistryRule>();
  for (const rule of rules) if (!byPrefix.has(rule.prefix)) byPrefix.set(rule.prefix, rule);
  return { registries: [...byPrefix.values()] };
}

type Fail = (line: number, why: string) => never;

function registryRule(table: TomlTable, fail: Fail): RegistryRule {
  checkKeys(table, REGISTRY_KEYS, '[[registry]]', fail);
  const at = (key: string) => table.entries.get(key)?.line ?? table.line;
  if (table.entries.has('pull-from-mirror'))
    fail(at('pull-from-mirror'), 'pull-from-mirror belongs in a [[registry.mirror]] table, not in [[registry]]');
  const location = locationOf(stringOf(table, 'location', fail) ?? '', at('location'), fail);
  const rawPrefix = stringOf(table, 'prefix', fail);
  let prefix: string;
  if (rawPrefix === undefined || rawPrefix === '') {
    if (location === '') fail(table.line, '[[registry]] needs a location or a prefix');
    prefix = location;
  } else if (rawPrefix.startsWith('*.')) {
    prefix = rawPrefix.replace(/\/+$/, '');
    if (!/^\*\.[A-Za-z0-9.-]+$/.test(prefix) || checkRegistry(prefix.slice(2)) !== undefined)
      fail(
        at('prefix'),
        `the wildcard prefix ${JSON.stringify(rawPrefix)} must look like *.example.com (no port, path, tag or digest)`,
      );
  } else {
    prefix = locationOf(rawPrefix, at('prefix'), fail);
    if (location === '') fail(at('prefix'), 'location is unset and the prefix is not a wildcard (*.example.com)');
  }
  const mirrorByDigestOnly = booleanOf(table, 'mirror-by-digest-only', fail);
  const mirrors = tablesOf(table.entries.get('mirror'), 'registry.mirror', fail).map((m) => {
    checkKeys(m, MIRROR_KEYS, '[[registry.mirror]]', fail);
    const mAt = (key: string) => m.entries.get(key)?.line ?? m.line;
    const mLocation = locationOf(stringOf(m, 'location', fail) ?? '', mAt('location'), fail);
    if (mLocation === '') fail(m.line, '[[registry.mirror]] needs a location');
    const pull = stringOf(m, 'pull-from-mirror', fail);
    if (pull !== undefined && pull !== '' && !(PULL_FROM_MIRROR as readonly string[]).includes(pull))
      fail(
        mAt('pull-from-mirror'),
        `pull-from-mirror must be one of ${PULL_FROM_MIRROR.join(', ')}, not ${JSON.stringify(pull)}`,
      );
    if (mirrorByDigestOnly && pull !== undefined && pull !== '')
      fail(mAt('pull-from-mirror'), 'pull-from-mirror cannot be set when the registry sets mirror-by-digest-only');
    return {
      location: mLocation,
      insecure: booleanOf(m, 'insecure', fail),
      pullFromMirror: pull === undefined || pull === '' ? undefined : (pull as PullFromMirror),
    };
  });
  return {
    prefix,
    location,
    insecure: booleanOf(table, 'insecure', fail),
    blocked: booleanOf(table, 'blocked', fail),
    mirrorByDigestOnly,
    mirrors,
  };
}

/** A location or prefix: `host[:port][/path…]`, no scheme; trailing slashes dropped. */
function locationOf(raw: string, line: number, fail: Fail): string {
  const trimmed = raw.replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed))
    fail(line, `${JSON.stringify(raw)}: URL schemes are not supported; write host[:port]/path`);
  const host = trimmed.split('/')[0]!;
  const problem = checkRegistry(host);
  if (problem) fail(line, `${JSON.stringify(raw)}: ${problem}`);
  if (/\s/.test(trimmed)) fail(line, `${JSON.stringify(raw)} contains white space`);
  return trimmed;
}

function checkKeys(table: TomlTable, allowed: Set<string>, where: string, fail: Fail): void {
  for (const [key, entry] of table.entries)
    if (!allowed.has(key)) fail(entry.line, `unknown key ${JSON.stringify(key)} in ${where}`);
}

function stringOf(table: TomlTable, key: string, fail: Fail): string | undefined {
  const entry = table.entries.get(key);
  if (entry === undefined) return undefined;
  if (typeof entry.value !== 'string') fail(entry.line, `${key} must be a string`);
  return entry.value as string;
}

function booleanOf(table: TomlTable, key: string, fail: Fail): boolean {
  const entry = table.entries.get(key);
  if (entry === undefined) return false;
  if (typeof entry.value !== 'boolean') fail(entry.line, `${key} must be true or false`);
  return entry.value as boolean;
}

function tablesOf(entry: TomlEntry | undefined, name: string, fail: Fail): TomlTable[] {
  if (entry === undefined) return [];
  const value: TomlValue = entry.value;
  if (Array.isArray(value) && value.every((v) => v instanceof TomlTable)) return value as TomlTable[];
  return fail(entry.line, `${name} must be written as [[${name}]] tables`);
}
