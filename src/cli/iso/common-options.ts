// Options several ISO verbs share, declared once so their help text reads the same everywhere.
// Does NOT: parse or act on them.
import type { OptionSpec } from '../args.js';

export const OUTPUT_ISO: OptionSpec = {
  long: 'output',
  short: 'o',
  value: 'PATH',
  help: 'write the ISO to a new file (`-` for stdout) instead of editing it in place',
};
export const QUIET: OptionSpec = { long: 'quiet', short: 'q', help: 'no progress output' };
