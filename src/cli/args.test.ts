import { describe, expect, it } from 'vitest';

import { helpText, parseArgs, UsageError, type VerbSpec } from './args.js';

const spec: VerbSpec = {
  name: 'bootsmith test verb',
  summary: 'A verb',
  options: [
    { long: 'output', short: 'o', value: 'PATH', help: 'out' },
    { long: 'append', short: 'a', value: 'KARG', repeat: true, help: 'append' },
    { long: 'force', short: 'f', help: 'force' },
  ],
  positionals: ['ISO', 'EXTRA?'],
};

describe('argument parser', () => {
  it('reads short, long, inline and repeated options and positionals', () => {
    const args = parseArgs(['-oout', '--append=x', '-a', 'y', '-f', 'in.iso', '--', '-odd'], spec);
    expect(args.options.get('output')).toEqual(['out']);
    expect(args.options.get('append')).toEqual(['x', 'y']);
    expect(args.options.has('force')).toBe(true);
    expect(args.positionals).toEqual(['in.iso', '-odd']);
    expect(parseArgs(['--output', '-', 'a'], spec).options.get('output')).toEqual(['-']);
  });

  it('refuses what is malformed with a UsageError', () => {
    for (const argv of [
      ['--nope', 'a'],
      ['-x', 'a'],
      ['a', '-o'],
      ['-o', '1', '-o', '2', 'a'],
      ['--force=1', 'a'],
      [],
      ['a', 'b', 'c'],
    ]) {
      expect(() => parseArgs(argv, spec), argv.join(' ')).toThrow(UsageError);
    }
  });

  it('answers --help even when arguments are missing, and renders every option', () => {
    expect(parseArgs(['--help'], spec).help).toBe(true);
    const text = helpText(spec);
    expect(text).toContain('usage: bootsmith test verb [options] ISO [EXTRA]');
    expect(text).toContain('-a, --append KARG');
    expect(text).toContain('(repeatable)');
  });
});
