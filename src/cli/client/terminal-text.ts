// Text from the service made safe to print on a terminal. A BMC chooses its Model, PowerState,
// slot ids and error messages, and they reach `bootsmith bmc list|show|refresh|update|add|boot`;
// an agent chooses its host name: an escape sequence among them would move the cursor, retitle the
// window or hide the lines around it. Every control character — C0 (newline and tab included: one
// value is one line), DEL, C1 (0x9B is CSI on terminals that take 8-bit controls) and the Unicode
// bidirectional and invisible formatting marks — is shown as an escape (`\x1b`, `\u202e`).
// Does NOT: escape our own layout (the tables' and lines' newlines, bmc boot's screen refresh are
// written around the values), or change anything printable.

const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

function escape(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

export function terminalText(text: string): string {
  return text.replace(CONTROLS, escape);
}

/** `value` with terminalText applied to every string in it (keys included): a parsed JSON answer. */
export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return terminalText(value) as T;
  if (Array.isArray(value)) return value.map(terminalSafe) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[terminalText(key)] = terminalSafe(v);
    return out as T;
  }
  return value;
}
