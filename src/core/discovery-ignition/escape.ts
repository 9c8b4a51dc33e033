// Quoting for the syntaxes the discovery Ignition writes values into: POSIX sh (profile.d
// scripts, `sh -c` commands) and systemd unit files (Environment=, Exec*= lines).
//
// Does: make any single-line value one literal word of the destination:
//  - sh: single quotes, each `'` written as `'\''`; nothing inside expands (`$(…)`, backticks,
//    `$VAR`, globs);
//  - systemd: `%` doubled (specifiers expand everywhere in a unit), `$` doubled on Exec*= lines
//    (environment expansion; Environment= does not expand), and a value holding blanks, quotes,
//    a backslash or `;` double-quoted with `\` and `"` backslash-escaped (systemd C-unescapes
//    quoted words). A plain value (an ordinary URL) stays unquoted, as it was written before.
// Refuses (an internal error, never a silent write) a value with a control character: input
// validation keeps them out, and no quoting makes a line break safe in these files.
// Does not: validate values (infraenv/params.ts does) or know which field goes where (discovery.ts).
import { BootsmithError } from '../../errors.js';

const CONTROL = /[\u0000-\u001f\u007f]/;
/** Characters that make systemd split, unquote or unescape a word. */
const SYSTEMD_SPECIAL = /[\s'"\\;]/;

function assertOneLine(value: string, where: string): void {
  if (CONTROL.test(value)) throw new BootsmithError('internal', `refusing to write a control character into ${where}`);
}

/** `value` as one single-quoted POSIX sh word. */
export function shQuote(value: string): string {
  assertOneLine(value, 'a shell script');
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function systemdWord(value: string, exec: boolean): string {
  assertOneLine(value, 'a systemd unit');
  let s = value.replaceAll('%', '%%');
  if (exec) s = s.replaceAll('$', '$$$$');
  if (s !== '' && !SYSTEMD_SPECIAL.test(s)) return s;
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** One `Environment=` line setting `name` to exactly `value`. */
export function systemdEnvironment(name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new BootsmithError('internal', `refusing to write environment variable ${JSON.stringify(name)}`);
  return `Environment=${systemdWord(`${name}=${value}`, false)}`;
}

/** `value` as one argument of an Exec*= command line (no specifier or variable expansion). */
export function systemdExecArg(value: string): string {
  return systemdWord(value, true);
}
