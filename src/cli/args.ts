// The tiny argument parser every offline and client verb shares: short and long options
// (`-o FILE`, `-oFILE`, `--output FILE`, `--output=FILE`), repeatable options, boolean flags,
// positional arguments, `--` to end options, and `-h`/`--help` on every verb.
// A mistake in the command line is a UsageError (exit 2, as clap does for coreos-installer).
// Does: parse argv against a declared spec and render that spec as help text. Verbs do not
// read ParsedArgs by option name: they declare typed fields (./options.ts) and read those.
// Does NOT: read files, validate values beyond "present / not present", or print anything.

/** The command line is malformed: unknown option, missing value or argument. Exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface OptionSpec {
  /** Long name without dashes, e.g. `output`. */
  long: string;
  /** One-letter short name, e.g. `o`. */
  short?: string;
  /** Takes a value (otherwise a boolean flag). */
  value?: string;
  /** May be given several times (values collected in order). */
  repeat?: boolean;
  help: string;
}

export interface VerbSpec {
  /** `bootsmith iso ignition embed` */
  name: string;
  summary: string;
  options: OptionSpec[];
  /** Positional argument names; a trailing `?` marks an optional one. */
  positionals: string[];
}

export interface ParsedArgs {
  /** Long option name → values (booleans as `['']`). */
  options: Map<string, string[]>;
  positionals: string[];
  help: boolean;
}

/** Help text for a verb. */
export function helpText(spec: VerbSpec): string {
  const args = spec.positionals
    .map((p) => (p.endsWith('?') ? `[${p.slice(0, -1)}]` : p.endsWith('...') ? `[${p}]` : p))
    .join(' ');
  const lines = [spec.summary, '', `usage: ${spec.name} [options]${args ? ` ${args}` : ''}`, '', 'options:'];
  const rows = spec.options.map((o) => {
    const names = `${o.short ? `-${o.short}, ` : '    '}--${o.long}${o.value ? ` ${o.value}` : ''}`;
    return [names, `${o.help}${o.repeat ? ' (repeatable)' : ''}`] as const;
  });
  rows.push(['-h, --help', 'print this help']);
  const width = Math.max(...rows.map(([n]) => n.length));
  for (const [names, help] of rows) lines.push(`  ${names.padEnd(width)}  ${help}`);
  return `${lines.join('\n')}\n`;
}

/** Parses `argv` (the words after the verb) against `spec`. */
export function parseArgs(argv: readonly string[], spec: VerbSpec): ParsedArgs {
  const usage = `usage: ${spec.name} --help`;
  const fail = (message: string): never => {
    throw new UsageError(`${spec.name}: ${message}`, usage);
  };
  const byLong = new Map(spec.options.map((o) => [o.long, o]));
  const byShort = new Map(spec.options.filter((o) => o.short).map((o) => [o.short!, o]));
  const options = new Map<string, string[]>();
  const positionals: string[] = [];
  let help = false;
  const set = (opt: OptionSpec, value: string): void => {
    const values = options.get(opt.long) ?? [];
    if (values.length > 0 && !opt.repeat) fail(`--${opt.long} given more than once`);
    values.push(value);
    options.set(opt.long, values);
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const takeValue = (opt: OptionSpec, inline: string | undefined): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined) return fail(`--${opt.long} needs a value (${opt.value})`);
      i++;
      return next;
    };
    if (word === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (word === '-h' || word === '--help') {
      help = true;
    } else if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq < 0 ? word.slice(2) : word.slice(2, eq);
      const inline = eq < 0 ? undefined : word.slice(eq + 1);
      const opt = byLong.get(name) ?? fail(`unknown option --${name}`);
      if (opt.value) set(opt, takeValue(opt, inline));
      else if (inline !== undefined) fail(`--${name} takes no value`);
      else set(opt, '');
    } else if (word.startsWith('-') && word.length > 1) {
      const opt = byShort.get(word[1]!) ?? fail(`unknown option ${word.slice(0, 2)}`);
      const rest = word.slice(2);
      if (opt.value) set(opt, takeValue(opt, rest.length > 0 ? rest : undefined));
      else if (rest.length > 0) fail(`-${opt.short} takes no value`);
      else set(opt, '');
    } else {
      positionals.push(word);
    }
  }
  if (help) return { options, positionals, help };
  // `NAME?` may be left out; a last `NAME...` takes any number (none included).
  const required = spec.positionals.filter((p) => !p.endsWith('?') && !p.endsWith('...')).length;
  const rest = spec.positionals.at(-1)?.endsWith('...') === true;
  if (positionals.length < required) fail(`missing argument ${spec.positionals[positionals.length]}`);
  if (!rest && positionals.length > spec.positionals.length)
    fail(`unexpected argument ${positionals[spec.positionals.length]}`);
  return { options, positionals, help };
}
