// A verb's command line declared as typed fields, the way coreos-installer declares its clap
// structs: each option and positional argument is a named field of the declaration, and the verb
// reads typed values back under the same names. A flag is a `boolean`, an option with a value
// `string | undefined`, a repeatable one `string[]`, a required positional `string`, an optional
// one `string | undefined`; `args.options.naem` or a missing positional does not compile, and no
// value needs a `!`.
//
//   options: { force: flagOption({ long: 'force', short: 'f', help: '…' }), output: OUTPUT_ISO },
//   positionals: { iso: argument('ISO') },
//   run(args) { args.options.force; args.options.output; args.positionals.iso }
//
// Field order is the order of the help text and of the positional arguments.
// Does: declare, turn a declaration into the parser's VerbSpec (./args.ts), and read ParsedArgs
// into the typed values. Does NOT: parse argv (./args.ts) or run a verb (./verb.ts).
import type { OptionSpec, ParsedArgs, VerbSpec } from './args.js';

interface OptionText {
  /** Long name without dashes, e.g. `output`. */
  long: string;
  /** One-letter short name, e.g. `o`. */
  short?: string;
  help: string;
}

/** A boolean switch (`--force`). */
export interface FlagOption extends OptionText {
  readonly kind: 'flag';
}
/** An option with one value (`--output PATH`), given at most once. */
export interface ValueOption extends OptionText {
  readonly kind: 'value';
  /** The value's name in the help text, e.g. `PATH`. */
  value: string;
}
/** An option with a value that may be given several times (`-a KARG -a KARG`), in order. */
export interface ListOption extends OptionText {
  readonly kind: 'list';
  value: string;
}
export type TypedOption = FlagOption | ValueOption | ListOption;

export const flagOption = (o: OptionText): FlagOption => ({ ...o, kind: 'flag' });
export const valueOption = (o: OptionText & { value: string }): ValueOption => ({ ...o, kind: 'value' });
export const listOption = (o: OptionText & { value: string }): ListOption => ({ ...o, kind: 'list' });

export interface RequiredArgument {
  readonly name: string;
  readonly optional: false;
}
export interface OptionalArgument {
  readonly name: string;
  readonly optional: true;
}
/** The last positional only: every remaining argument, in order (none included). */
export interface RestArguments {
  readonly name: string;
  readonly optional: true;
  readonly rest: true;
}
export type TypedPositional = RequiredArgument | OptionalArgument | RestArguments;

/** A positional argument that must be given; `name` is how help and usage errors call it. */
export const argument = (name: string): RequiredArgument => ({ name, optional: false });
/** A positional argument that may be left out (only after the required ones). */
export const optionalArgument = (name: string): OptionalArgument => ({ name, optional: true });
/** Every remaining argument (`NAME...`), as a list; only as the last positional. */
export const restArguments = (name: string): RestArguments => ({ name, optional: true, rest: true });

export type OptionSet = Readonly<Record<string, TypedOption>>;
export type PositionalSet = Readonly<Record<string, TypedPositional>>;

/** The values of an option set, under the set's field names. */
export type OptionValues<O extends OptionSet> = {
  readonly [K in keyof O]: O[K] extends ListOption ? string[] : O[K] extends ValueOption ? string | undefined : boolean;
};
export type PositionalValues<P extends PositionalSet> = {
  readonly [K in keyof P]: P[K] extends RestArguments
    ? string[]
    : P[K] extends OptionalArgument
      ? string | undefined
      : string;
};

/** What a verb's `run` gets: every declared field, typed. */
export interface Args<O extends OptionSet, P extends PositionalSet> {
  options: OptionValues<O>;
  positionals: PositionalValues<P>;
}

/** The parser's view of a declaration (names, value names, repeatability, help). */
export function verbSpec(name: string, summary: string, options: OptionSet, positionals: PositionalSet): VerbSpec {
  return {
    name,
    summary,
    options: Object.values(options).map((o): OptionSpec => ({
      long: o.long,
      short: o.short,
      value: o.kind === 'flag' ? undefined : o.value,
      repeat: o.kind === 'list',
      help: o.help,
    })),
    positionals: Object.values(positionals).map((p) =>
      'rest' in p ? `${p.name}...` : p.optional ? `${p.name}?` : p.name,
    ),
  };
}

/** Reads what the parser found into the declared fields. */
export function readArgs<O extends OptionSet, P extends PositionalSet>(
  parsed: ParsedArgs,
  options: O,
  positionals: P,
): Args<O, P> {
  const values: Record<string, string | string[] | boolean | undefined> = {};
  for (const [field, o] of Object.entries(options)) {
    const given = parsed.options.get(o.long);
    values[field] = o.kind === 'flag' ? given !== undefined : o.kind === 'list' ? [...(given ?? [])] : given?.[0];
  }
  const args: Record<string, string | string[] | undefined> = {};
  Object.entries(positionals).forEach(
    ([field, p], i) => (args[field] = 'rest' in p ? parsed.positionals.slice(i) : parsed.positionals[i]),
  );
  return { options: values as OptionValues<O>, positionals: args as PositionalValues<P> };
}
