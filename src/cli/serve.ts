// `bootsmith serve [--role all|image|core]`: runs the service with the configuration from the
// environment until SIGTERM/SIGINT. On a terminal (stderr is a TTY) it prints a human start line
// (src/startup/start-line.ts) before the log: where it serves, the console and API URLs, the
// path of the admin token file (never the token), which address the URLs use and any warnings;
// the log lines of the start are held until then (./held-log.ts). The log goes to stdout, the
// start line to stderr, so `bootsmith serve | tee log` keeps the line on the terminal and the
// log clean; without a terminal there is no start line and nothing is held. The log is JSON lines,
// shown as `HH:MM:SS LEVEL message key=value …` when stdout is a terminal (./terminal-log.ts).
//
// Does: load the configuration, start the service, drain on the first signal and exit 0 (a
// second signal cuts the streams). A configuration error (also a start refused because no
// address can be handed out) is exit 2 with one line. Does NOT: parse configuration itself
// (src/config.ts) or know what the service does (src/service.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { describeError } from '../errors.js';
import { createLogger } from '../logger.js';
import { redactText } from '../redact.js';
import { startService } from '../service.js';
import { startLines } from '../startup/start-line.js';
import { commandConfig } from './command-config.js';
import { HeldLog } from './held-log.js';
import { TerminalLog } from './terminal-log.js';
import { valueOption } from './options.js';
import { type CliIo, defineVerb } from './verb.js';

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

async function serve(role: string | undefined, io: CliIo): Promise<number> {
  const config = commandConfig(io, role === undefined ? [] : ['--role', role]);
  if (config === 2) return 2;
  // on a terminal the log is lines to read (./terminal-log.ts); piped or redirected it stays JSON
  const readable = io.stdout.isTTY ? new TerminalLog(io.stdout) : undefined;
  const held = io.stderr.isTTY ? new HeldLog(readable ?? io.stdout) : undefined;
  const logger = createLogger(config.logLevel, held ?? readable);
  let service;
  try {
    service = await startService(config, logger, {
      announce: (summary) => {
        if (!held) return;
        io.stderr.write(startLines({ ...summary, version: packageVersion() }));
        held.release();
      },
    });
  } catch (err) {
    held?.release();
    if (err instanceof ConfigError) {
      io.stderr.write(`bootsmith: configuration error: ${redactText(err.message)}\n`);
      return 2;
    }
    throw err;
  }
  // First SIGTERM/SIGINT: graceful drain (/health 503, no new connections, streams finish
  // within SHUTDOWN_GRACE_SECONDS), then the database and image store stop; exit 0.
  // A second signal cuts the streams at once.
  let shuttingDown = false;
  const running = service;
  const stop = (signal: string) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: cutting the streams still in flight');
      running.server.closeAllConnections();
      return;
    }
    shuttingDown = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs, connections: running.drain.openConnections }, 'draining');
    running.shutdown(config.shutdownGraceMs).then(
      (result) => {
        logger.info(result, 'drained; stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err: describeError(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return new Promise<number>(() => undefined); // runs until a signal arrives
}

export const serveVerb = defineVerb({
  name: 'bootsmith serve',
  summary:
    'Run the service; every setting comes from the environment (docs/operator/configuration.md), DATA_DIR defaults to ./data',
  options: {
    role: valueOption({
      long: 'role',
      value: 'all|image|core',
      help: 'all (default, or BOOTSMITH_ROLE), image (image side only; needs ASSISTED_SERVICE_URL) or core (the assisted API only)',
    }),
  },
  positionals: {},
  run: ({ options }, io) => serve(options.role, io),
});
