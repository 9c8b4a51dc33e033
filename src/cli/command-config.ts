// The configuration a CLI subcommand runs with: loadConfig() on the command's environment, with a
// ConfigError printed as one line and turned into the usage exit code (2). Other errors propagate.
// Does not parse arguments or open anything.
import { type Config, ConfigError, loadConfig } from '../config.js';

/** The config, or the exit code after printing why the environment is unusable. */
export function commandConfig(io: { env: NodeJS.ProcessEnv; stderr: { write(text: string): unknown } }): Config | 2 {
  try {
    return loadConfig(io.env, []);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`bootsmith: configuration error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
