// How one CLI verb runs: parse its arguments, answer `--help`, run it, and turn the outcome into
// an exit code like coreos-installer: 0 done, 1 error (one line on stderr naming the file and the
// reason), 2 usage error (the message and where to find help).
// Every verb is declared with defineVerb: its name, summary, typed options and positionals
// (./options.ts) and its run function, which gets the typed values.
// Does: the shared run loop and the I/O handles verbs get. Does NOT: know any verb.
import { Readable } from 'node:stream';

import { describeError } from '../errors.js';
import { redactText } from '../redact.js';
import { helpText, parseArgs, UsageError, type ParsedArgs, type VerbSpec } from './args.js';
import { type Args, type OptionSet, type PositionalSet, readArgs, verbSpec } from './options.js';

/** Standard output or error: the process's streams, or a capture in tests. */
export interface CliOutput {
  write(chunk: string | Uint8Array, callback?: (err?: Error | null) => void): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** What a verb may touch besides the files it is given. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  stdout: CliOutput;
  stderr: CliOutput;
}

/** A verb of the command tree, as the run loop sees it (made by defineVerb). */
export interface Verb {
  spec: VerbSpec;
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

/** A verb's declaration: `run` reads `args.options.<field>` and `args.positionals.<field>`, typed. */
export interface VerbDefinition<O extends OptionSet, P extends PositionalSet> {
  /** `bootsmith iso ignition embed` */
  name: string;
  summary: string;
  options: O;
  positionals: P;
  run(args: Args<O, P>, io: CliIo): Promise<number>;
}

export function defineVerb<O extends OptionSet, P extends PositionalSet>(definition: VerbDefinition<O, P>): Verb {
  const { name, summary, options, positionals } = definition;
  return {
    spec: verbSpec(name, summary, options, positionals),
    run: (parsed, io) => definition.run(readArgs(parsed, options, positionals), io),
  };
}

/** A failure the user can act on, printed as `bootsmith: <subject>: <reason>` (an empty subject as `""`). */
export class CliError extends Error {
  constructor(subject: string, reason: string, options?: { cause?: unknown }) {
    super(`${subject === '' ? '""' : subject}: ${reason}`, options);
    this.name = 'CliError';
  }
}

/** The message of any error as one line (secrets redacted; each run of white space holding a newline folded to one space). */
export function oneLine(err: unknown): string {
  // one pass over each run (`\s*\n\s*` backtracked quadratically over long runs of spaces)
  return redactText(describeError(err)).replace(/\s+/g, (space) => (space.includes('\n') ? ' ' : space));
}

export async function runVerb(verb: Verb, argv: readonly string[], io: CliIo): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv, verb.spec);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`bootsmith: ${err.message}\n${err.usage}\n`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    io.stdout.write(helpText(verb.spec));
    return 0;
  }
  try {
    return await verb.run(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`bootsmith: ${err.message}\n${err.usage}\n`);
      return 2;
    }
    io.stderr.write(`bootsmith: ${oneLine(err)}\n`);
    return 1;
  }
}

/** A group of verbs (`iso`, `iso ignition`, …): picks the verb by the next word(s). */
export interface VerbGroup {
  name: string;
  verbs: Record<string, Verb | VerbGroup>;
}

function isVerb(v: Verb | VerbGroup): v is Verb {
  return 'spec' in v;
}

function groupHelp(group: VerbGroup): string {
  const lines: string[] = [];
  const walk = (g: VerbGroup): void => {
    for (const v of Object.values(g.verbs)) {
      if (isVerb(v)) lines.push(`  ${v.spec.name.padEnd(44)} ${v.spec.summary}`);
      else walk(v);
    }
  };
  walk(group);
  return `usage: ${group.name} <verb> … (each verb takes --help)\n\n${lines.join('\n')}\n`;
}

/** The I/O of a verb run in-process with no standard input (tests, and verbs that read none). */
export function withoutStdin(io: Omit<CliIo, 'stdin'>): CliIo {
  return { ...io, stdin: Readable.from([]) };
}

export async function runGroup(group: VerbGroup, argv: readonly string[], io: CliIo): Promise<number> {
  const [word, ...rest] = argv;
  if (word === '-h' || word === '--help' || word === 'help') {
    io.stdout.write(groupHelp(group));
    return 0;
  }
  const next = word === undefined || !Object.hasOwn(group.verbs, word) ? undefined : group.verbs[word];
  if (next === undefined) {
    io.stderr.write(
      `bootsmith: ${group.name}: ${word === undefined ? 'missing verb' : `unknown verb ${JSON.stringify(word)}`}\n${groupHelp(group)}`,
    );
    return 2;
  }
  return isVerb(next) ? runVerb(next, rest, io) : runGroup(next, rest, io);
}
