// The bmc verbs' pure parts as tables: import files (CSV with quotes, YAML, the errors naming a line
// or item and never what a cell holds), whether a boot reached its --wait target, --timeout, and
// the `NAME...` positional of the argument parser.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../args.js';
import { rowOutcome } from './bmc-boot.js';
import { timeoutMs } from './bmc-client.js';
import { parseImport } from './bmc-import.js';
import type { JobView } from './bmc-client.js';

describe('parseImport', () => {
  it('reads CSV with a header, quotes and comments; leaves empty cells out', () => {
    const rows = parseImport(
      '# fleet\nname,address,username,password_file,insecure\nn1,"https://a,b",root,pw,\n\nn2,b,"ro""ot",pw,true\n',
      'f.csv',
    );
    expect(rows).toEqual([
      { where: 'line 3', row: { name: 'n1', address: 'https://a,b', username: 'root', password_file: 'pw' } },
      { where: 'line 5', row: { name: 'n2', address: 'b', username: 'ro"ot', password_file: 'pw', insecure: 'true' } },
    ]);
  });
  it('reads YAML', () => {
    expect(
      parseImport('- name: n1\n  address: b\n  username: root\n  password_file: pw\n  insecure: true\n', 'f.yaml'),
    ).toEqual([
      { where: 'item 1', row: { name: 'n1', address: 'b', username: 'root', password_file: 'pw', insecure: 'true' } },
    ]);
  });
  it.each([
    ['name,address\nn1,b\n', 'f.csv', 'line 2: username is required'],
    ['name,address,username,password_file\nn1,b,root\n', 'f.csv', 'line 2: 3 fields, the header has 4'],
    ['s3cret-password-here\n', 'f.csv', 'line 1: column 1 is none of ('],
    ['- { name: n1, passwd: s3cret }\n', 'f.yaml', 'item 1: a key is none of ('],
    ['name: n1\n', 'f.yaml', 'a YAML import is a list of BMCs'],
    ['', 'f.csv', 'empty'],
  ])('%j → %s', (text, file, message) => {
    let thrown: unknown;
    try {
      parseImport(text, file);
    } catch (err) {
      thrown = err;
    }
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toContain('s3cret');
  });
});

describe('rowOutcome', () => {
  const job = (state: string, booted: string): JobView =>
    ({ state, steps: [{ name: 'booted', status: booted, detail: '' }] }) as unknown as JobView;
  it.each([
    ['queue failed', { error: '409 busy' }, 'registered', 'failed'],
    ['job failed', { job: job('failed', 'pending') }, 'booted', 'failed'],
    ['running, not booted', { job: job('running', 'pending') }, 'booted', 'waiting'],
    ['booted', { job: job('running', 'done') }, 'booted', 'reached'],
    ['booted is not registered', { job: job('running', 'done') }, 'registered', 'waiting'],
    ['succeeded', { job: job('succeeded', 'done') }, 'registered', 'reached'],
    ['queued, wait none', { job: job('queued', 'pending') }, 'none', 'reached'],
  ] as const)('%s', (_name, row, wait, outcome) => {
    expect(rowOutcome(row, wait)).toBe(outcome);
  });
});

describe('--timeout and NAME...', () => {
  it.each([
    [undefined, 3_600_000],
    ['90', 90_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
  ])('%s → %d ms', (value, ms) => expect(timeoutMs(value)).toBe(ms));
  it.each(['0', 'soon', '25h'])('%s is refused', (value) =>
    expect(() => timeoutMs(value)).toThrow('--timeout: must be a duration'),
  );
  it('takes any number of names after the required ones', () => {
    const spec = { name: 'x', summary: 's', options: [], positionals: ['ACTION', 'NAME...'] };
    expect(parseArgs(['boot', 'a', 'b', 'c'], spec).positionals).toEqual(['boot', 'a', 'b', 'c']);
    expect(parseArgs(['boot'], spec).positionals).toEqual(['boot']);
    expect(() => parseArgs([], spec)).toThrow('missing argument ACTION');
  });
});
