// The log of `bootsmith serve` as a person reads it on a terminal: each JSON line pino writes
// becomes `HH:MM:SS LEVEL message key=value …` (local time; the level as a word; `service`, which is
// always bootsmith, left out; strings quoted only when they need it; objects as JSON). Every
// control character a logged value could carry (a BMC's model string, a file name) is escaped,
// never written to the terminal raw. Without a terminal on stdout the log stays JSON (issue 37:
// the terminal start printed raw JSON lines).
//
// Does: format one line at a time, as a pino destination. Does NOT: redact (src/logger.ts did it
// before the line was written), decide whether stdout is a terminal (src/cli/serve.ts does), or
// hold lines back during the start (./held-log.ts). Next: ./held-log.ts.
import type { DestinationStream } from 'pino';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, shown in the line's head or not at all. */
const HEAD_FIELDS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

/** C0 and C1 controls, DEL, and the Unicode line separators: never written raw. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A string as a field value: bare when it is one plain word, else quoted with escapes. */
function fieldText(value: string): string {
  if (value !== '' && !/[\s"=\\]/.test(value) && !HAS_CONTROL.test(value)) return value;
  return `"${escapeControls(value.replace(/[\\"]/g, '\\$&'))}"`;
}

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return fieldText(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return escapeControls(JSON.stringify(value) ?? String(value));
}

function clock(ms: number): string {
  const t = new Date(ms);
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** One pino JSON line as a terminal line (a line that is not a JSON object is only made safe). */
export function terminalLogLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(json);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    record = parsed as Record<string, unknown>;
  } catch {
    return `${escapeControls(json.replace(/\n$/, ''))}\n`;
  }
  const level = typeof record.level === 'number' ? (LEVELS[record.level] ?? String(record.level)) : '';
  const time = typeof record.time === 'number' ? clock(record.time) : '--:--:--';
  const message = typeof record.msg === 'string' ? escapeControls(record.msg) : '';
  const fields = Object.entries(record)
    .filter(([key]) => !HEAD_FIELDS.has(key))
    .map(([key, value]) => `${escapeControls(key)}=${fieldValue(value)}`);
  return `${[time, level.padEnd(5), message, ...fields].filter((part) => part !== '').join(' ')}\n`;
}

/** A pino destination writing terminal lines to `out`. */
export class TerminalLog implements DestinationStream {
  constructor(private readonly out: { write(line: string): unknown }) {}

  write(line: string): void {
    this.out.write(terminalLogLine(line));
  }
}
