// Plain-text tables for the client verbs: columns padded to their widest cell, every cell made
// safe to print (terminal-text.ts: a value from a BMC or an agent cannot steer the terminal).
// Does NOT: truncate or colour.
import { terminalText } from './terminal-text.js';

export function renderTable(header: readonly string[], unsafe: readonly (readonly string[])[]): string {
  const rows = unsafe.map((r) => r.map(terminalText));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
