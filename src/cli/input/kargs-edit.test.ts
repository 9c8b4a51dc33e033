import { describe, expect, it } from 'vitest';

import { BadRequestError } from '../../errors.js';
import { applyKargsChanges, splitKargs } from './kargs-edit.js';

describe('kargs edits', () => {
  it('splits on blanks outside double quotes', () => {
    expect(splitKargs('  a b="c d"   e ')).toEqual(['a', 'b="c d"', 'e']);
  });

  it('deletes, then appends, then replaces', () => {
    const out = applyKargsChanges('quiet console=tty0 ro', {
      delete: ['quiet'],
      append: ['foo=bar'],
      replace: ['console=tty0=ttyS0', 'foo=bar=baz', 'ro=rw'],
    });
    expect(out).toBe('console=ttyS0 rw foo=baz');
  });

  it('names an argument that is not there instead of ignoring it', () => {
    expect(() => applyKargsChanges('a b', { delete: ['c'], append: [], replace: [] })).toThrow(BadRequestError);
    expect(() => applyKargsChanges('a b', { delete: [], append: [], replace: ['x=1=2'] })).toThrow(
      /"x=1" is not present/,
    );
    expect(() => applyKargsChanges('a', { delete: [], append: ['two words'], replace: [] })).toThrow(
      /not one kernel argument/,
    );
    expect(() => applyKargsChanges('a', { delete: [], append: [], replace: ['noequals'] })).toThrow(/KEY=OLD=NEW/);
  });
});
