// The syntax of systemd unit and dropin contents as Ignition checks it before it writes a unit
// (go-systemd's unit lexer): so that an override Ignition would refuse is a 400 at creation.
//
// Does: check, line by line, that no physical line is 2048 bytes or longer, that a `[` line
// is a section header with nothing but blanks after its `]`, and that every other line that
// is not blank, a comment (`#`, `;`) or the continuation of a value ending in `\` is an
// assignment (`Name=value`). Measured against Debian's `ignition-validate` 2.14.
// Does not: know unit options or their values (systemd-analyze does, in the tests), or escape
// anything (systemd-escape.ts does for what we write ourselves).

/** go-systemd's SYSTEMD_LINE_MAX: a physical line of 2048 bytes or more is refused. */
export const UNIT_LINE_MAX_BYTES = 2048;

/** The first syntax problem of a unit's contents, or undefined; never echoes the contents. */
export function unitSyntaxProblem(contents: string): string | undefined {
  const lines = contents.split('\n');
  let continued = false;
  for (const [i, raw] of lines.entries()) {
    const at = `line ${i + 1}`;
    if (Buffer.byteLength(raw, 'utf8') >= UNIT_LINE_MAX_BYTES)
      return `${at} is ${UNIT_LINE_MAX_BYTES} bytes or longer (systemd's line limit)`;
    const line = raw.replace(/\r$/, '');
    const wasContinued = continued;
    continued = false;
    if (wasContinued) {
      continued = line.endsWith('\\');
      continue;
    }
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    if (trimmed.startsWith('[')) {
      const close = trimmed.indexOf(']');
      if (close < 0) return `${at} opens a section without closing it`;
      if (trimmed.slice(close + 1).trim() !== '') return `${at} has text after its section name`;
      continue;
    }
    if (!trimmed.includes('=')) return `${at} is neither a section, a comment nor a Name=value assignment`;
    continued = line.endsWith('\\');
  }
  return undefined;
}
