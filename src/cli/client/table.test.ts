// renderTable as a table: columns padded to their widest cell (header included), two spaces
// between columns, the last column unpadded, no trailing blanks, one newline per line.
import { describe, expect, it } from 'vitest';

import { renderTable } from './table.js';
import { terminalSafe, terminalText } from './terminal-text.js';

describe('renderTable: table', () => {
  it.each<[string, string[], string[][], string]>([
    ['a header alone', ['ID', 'NAME'], [], 'ID  NAME\n'],
    [
      'cells wider than the header',
      ['ID', 'NAME'],
      [
        ['abc', 'x'],
        ['d', 'longer'],
      ],
      'ID   NAME\nabc  x\nd    longer\n',
    ],
    ['a header wider than the cells', ['HOSTNAME', 'STATUS'], [['a', 'known']], 'HOSTNAME  STATUS\na         known\n'],
    ['an empty last cell leaves no trailing blanks', ['A', 'B'], [['x', '']], 'A  B\nx\n'],
    ['a missing cell counts as empty', ['A', 'B', 'C'], [['x']], 'A  B  C\nx\n'],
    ['empty middle cells keep the columns', ['A', 'B', 'C'], [['1', '', '3']], 'A  B  C\n1     3\n'],
  ])('%s', (_name, header, rows, expected) => {
    expect(renderTable(header, rows)).toBe(expected);
  });
});

describe('terminalText: a value cannot steer the terminal', () => {
  it.each<[string, string, string]>([
    ['printable text is kept, accents and emoji too', 'PowerEdge R750 ü 😀 [x]', 'PowerEdge R750 ü 😀 [x]'],
    ['a colour escape', '\x1b[31mOn\x1b[0m', '\\x1b[31mOn\\x1b[0m'],
    ['a window title (OSC … BEL)', '\x1b]0;pwned\x07', '\\x1b]0;pwned\\x07'],
    ['a clear screen', '\x1b[2J\x1b[H', '\\x1b[2J\\x1b[H'],
    ['newline, carriage return, tab: one value is one line', 'a\nb\rc\td', 'a\\x0ab\\x0dc\\x09d'],
    ['DEL and NUL', '\x7f\x00', '\\x7f\\x00'],
    ['an 8-bit CSI (C1)', '\u009b31m', '\\x9b31m'],
    ['bidirectional overrides and invisible marks', 'a\u202eb\u2066c\u200bd\ufeff', 'a\\u202eb\\u2066c\\u200bd\\ufeff'],
  ])('%s', (_name, text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });

  it('tables escape their cells; parsed answers every string and key', () => {
    expect(renderTable(['NAME', 'POWER'], [['n1', '\x1b[2JOn']])).toBe('NAME  POWER\nn1    \\x1b[2JOn\n');
    expect(terminalSafe({ a: ['\x1b[1m', 3, null], '\x07k': { b: true } })).toEqual({ a: ['\\x1b[1m', 3, null], '\\x07k': { b: true } });
  });
}); // prettier-ignore
