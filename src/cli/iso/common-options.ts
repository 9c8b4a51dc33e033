// Options several ISO verbs share, declared once so their help text reads the same everywhere.
// Does NOT: parse or act on them.
import { flagOption, valueOption } from '../options.js';

export const OUTPUT_ISO = valueOption({
  long: 'output',
  short: 'o',
  value: 'PATH',
  help: 'write the ISO to a new file (`-` for stdout) instead of editing it in place',
});
export const QUIET = flagOption({ long: 'quiet', short: 'q', help: 'no progress output' });
