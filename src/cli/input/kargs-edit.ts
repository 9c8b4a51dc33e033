// Editing a kernel command line the way `coreos-installer iso kargs modify` does: `-a ARG` appends
// ARG, `-d ARG` deletes every argument equal to ARG, `-r KEY=OLD=NEW` replaces the argument
// `KEY=OLD` by `KEY=NEW` (`-r OLD=NEW` replaces a bare `OLD` by `NEW`). Deletions run first, then
// appends, then replacements (so an appended argument can be replaced in the same call). Deleting or replacing an argument that is not there is an error naming
// it, so a typo never silently leaves the old argument in place.
// Does: pure string work on whitespace-separated words (quoted values stay one word).
// Does NOT: check that the result fits the kargs areas (kargs-codec.ts does), or write anything.
import { BadRequestError } from '../../errors.js';

/** Splits kargs into words; a double-quoted part keeps its blanks (`a="b c"` is one word). */
export function splitKargs(kargs: string): string[] {
  const words: string[] = [];
  let current = '';
  let quoted = false;
  for (const c of kargs) {
    if (c === '"') quoted = !quoted;
    if (!quoted && /\s/.test(c)) {
      if (current) words.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (current) words.push(current);
  return words;
}

export interface KargsChanges {
  append: readonly string[];
  delete: readonly string[];
  replace: readonly string[];
}

function parseReplace(spec: string): { from: string; to: string } {
  const last = spec.lastIndexOf('=');
  if (last <= 0 || last === spec.length - 1) {
    throw new BadRequestError(`replacement ${JSON.stringify(spec)} is not KEY=OLD=NEW or OLD=NEW`);
  }
  const from = spec.slice(0, last);
  const value = spec.slice(last + 1);
  const keyEnd = from.indexOf('=');
  return { from, to: keyEnd < 0 ? value : `${from.slice(0, keyEnd)}=${value}` };
}

export function applyKargsChanges(kargs: string, changes: KargsChanges): string {
  let words = splitKargs(kargs);
  for (const arg of changes.delete) {
    if (!words.includes(arg))
      throw new BadRequestError(`kernel argument ${JSON.stringify(arg)} is not present, so it cannot be deleted`);
    words = words.filter((w) => w !== arg);
  }
  for (const arg of changes.append) {
    const added = splitKargs(arg);
    if (added.length !== 1) throw new BadRequestError(`${JSON.stringify(arg)} is not one kernel argument`);
    words.push(added[0]!);
  }
  for (const spec of changes.replace) {
    const { from, to } = parseReplace(spec);
    if (!words.includes(from))
      throw new BadRequestError(`kernel argument ${JSON.stringify(from)} is not present, so it cannot be replaced`);
    words = words.map((w) => (w === from ? to : w));
  }
  return words.join(' ');
}
