// The typed option and positional declarations (./options.ts): what the parser gets from a
// declaration (the same help text as a hand-written VerbSpec), what a verb reads back (typed
// values under the declared field names), what does not compile (a misspelt option or
// positional: checked by `npm run typecheck`), and that no verb in the command tree gives two
// fields the same option name (a spread of shared options would otherwise hide one).
import { describe, expect, expectTypeOf, it } from 'vitest';

import { helpText, parseArgs, type VerbSpec } from './args.js';
import { BOOTSMITH } from './commands.js';
import {
  argument,
  flagOption,
  listOption,
  optionalArgument,
  readArgs,
  valueOption,
  type OptionValues,
  verbSpec,
} from './options.js';
import type { Verb, VerbGroup } from './verb.js';

const OPTIONS = {
  output: valueOption({ long: 'output', short: 'o', value: 'PATH', help: 'out' }),
  append: listOption({ long: 'append', short: 'a', value: 'KARG', help: 'append' }),
  force: flagOption({ long: 'force', short: 'f', help: 'force' }),
};
const POSITIONALS = { iso: argument('ISO'), extra: optionalArgument('EXTRA') };

/** The same verb as a hand-written VerbSpec (src/cli/args.test.ts's). */
const HAND_WRITTEN: VerbSpec = {
  name: 'bootsmith test verb',
  summary: 'A verb',
  options: [
    { long: 'output', short: 'o', value: 'PATH', help: 'out' },
    { long: 'append', short: 'a', value: 'KARG', repeat: true, help: 'append' },
    { long: 'force', short: 'f', help: 'force' },
  ],
  positionals: ['ISO', 'EXTRA?'],
};

describe('typed verb declarations', () => {
  const spec = verbSpec('bootsmith test verb', 'A verb', OPTIONS, POSITIONALS);

  it('give the parser the spec a hand-written one gives, in declaration order', () => {
    expect(helpText(spec)).toBe(helpText(HAND_WRITTEN));
    expect(spec.positionals).toEqual(['ISO', 'EXTRA?']);
  });

  it('read flags, values, repeated values and positionals back under their field names', () => {
    const args = readArgs(parseArgs(['-oout', '--append=x', '-a', 'y', '-f', 'in.iso'], spec), OPTIONS, POSITIONALS);
    expect(args.options).toEqual({ output: 'out', append: ['x', 'y'], force: true });
    expect(args.positionals).toEqual({ iso: 'in.iso', extra: undefined });
    const bare = readArgs(parseArgs(['in.iso', 'more'], spec), OPTIONS, POSITIONALS);
    expect(bare.options).toEqual({ output: undefined, append: [], force: false });
    expect(bare.positionals).toEqual({ iso: 'in.iso', extra: 'more' });
  });

  it('type every field, and a misspelt one does not compile', () => {
    const args = readArgs(parseArgs(['in.iso'], spec), OPTIONS, POSITIONALS);
    expectTypeOf(args.options.output).toEqualTypeOf<string | undefined>();
    expectTypeOf(args.options.append).toEqualTypeOf<string[]>();
    expectTypeOf(args.options.force).toEqualTypeOf<boolean>();
    expectTypeOf(args.positionals.iso).toEqualTypeOf<string>();
    expectTypeOf(args.positionals.extra).toEqualTypeOf<string | undefined>();
    expectTypeOf<OptionValues<typeof OPTIONS>>().toHaveProperty('output');
    // @ts-expect-error a misspelt option is a compile error
    expect(args.options.ouptut).toBeUndefined();
    // @ts-expect-error so is a positional that was not declared
    expect(args.positionals.output).toBeUndefined();
  });
});

function verbsOf(group: VerbGroup): Verb[] {
  return Object.values(group.verbs).flatMap((v) => ('spec' in v ? [v] : verbsOf(v)));
}

describe('the command tree', () => {
  it.each(verbsOf(BOOTSMITH).map((v) => [v.spec.name, v] as const))(
    '%s names each option once, long and short',
    (_name, verb) => {
      const longs = verb.spec.options.map((o) => o.long);
      const shorts = verb.spec.options.flatMap((o) => (o.short ? [o.short] : []));
      expect(new Set(longs).size, longs.join(' ')).toBe(longs.length);
      expect(new Set(shorts).size, shorts.join(' ')).toBe(shorts.length);
      expect(longs).not.toContain('help');
      expect(shorts).not.toContain('h');
    },
  );
});
