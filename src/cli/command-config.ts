// The configuration a CLI verb runs with: loadConfig() on the verb's environment (and `--role`
// for serve), with a ConfigError printed as one redacted line and turned into the usage exit
// code (2). Other errors propagate. And the logger of the verbs that use the service's parts.
// Does not parse arguments or open anything.
import type { Logger } from 'pino';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { redactText } from '../redact.js';
import type { CliIo } from './verb.js';

/** The config, or the exit code after printing why the environment is unusable. */
export function commandConfig(io: Pick<CliIo, 'env' | 'stderr'>, argv: readonly string[] = []): Config | 2 {
  try {
    return loadConfig(io.env, argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`bootsmith: configuration error: ${redactText(err.message)}\n`);
      return 2;
    }
    throw err;
  }
}

/**
 * The logger of a verb that runs the service's parts (images, db): the service's redacting
 * logger (src/logger.ts) on the verb's stderr, silent unless LOG_LEVEL is set, since the verb's
 * own lines are its output.
 */
export function commandLogger(config: Config, io: Pick<CliIo, 'env' | 'stderr'>): Logger {
  return createLogger(io.env.LOG_LEVEL ? config.logLevel : 'silent', {
    write: (line: string) => void io.stderr.write(line),
  });
}
