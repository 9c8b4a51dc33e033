// renderTable as a table: columns padded to their widest cell (header included), two spaces
// between columns, the last column unpadded, no trailing blanks, one newline per line.
import { describe, expect, it } from 'vitest';

import { renderTable } from './table.js';

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
