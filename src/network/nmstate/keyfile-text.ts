// NetworkManager keyfile text (nm-settings-keyfile(5)): `[section]` headers and `key=value`
// lines, sections separated by a blank line, the file ending in a newline.
//
// Does: write sections in the order given and keys in the order given, so the same model
// always gives the same bytes; refuse (as a bug) any value that could change the file's
// structure: a line break, a control character, a backslash (GKeyFile's escape character)
// or surrounding blanks, which GKeyFile would strip.
// Does not: choose sections, keys or values (render-host.ts).
import { BootsmithError } from '../../errors.js';

export type KeyfileEntry = readonly [key: string, value: string];

export interface KeyfileSection {
  name: string;
  entries: KeyfileEntry[];
}

const KEY_RE = /^[a-z0-9][a-z0-9_.+-]*$/;
const UNSAFE_VALUE = /[\u0000-\u001f\u007f\\]|^\s|\s$/;

export function keyfileText(sections: readonly KeyfileSection[]): string {
  return sections
    .map((s) => {
      const lines = [`[${s.name}]`];
      for (const [key, value] of s.entries) {
        if (!KEY_RE.test(key) || UNSAFE_VALUE.test(value)) {
          throw new BootsmithError('internal', `keyfile [${s.name}] ${key}: refusing to write an unsafe key or value`);
        }
        lines.push(`${key}=${value}`);
      }
      return `${lines.join('\n')}\n`;
    })
    .join('\n');
}
