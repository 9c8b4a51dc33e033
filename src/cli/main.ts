#!/usr/bin/env node
// The bootsmith command line.
//   bootsmith serve [--role all|image|core]   run the service (configuration from the environment)
//   bootsmith iso …, bootsmith pxe …           offline ISO/PXE verbs as coreos-installer's (src/cli/iso, src/cli/pxe)
//   bootsmith images pull|list                 fetch and verify the configured base images / show the cache
//   bootsmith auth rotate-admin                new admin token (DATA_DIR/auth/admin-token); the old one stops working
//   bootsmith db export|import                 move InfraEnvs and hosts as JSON (also out of a PGlite-era DATA_DIR)
import { ConfigError, loadConfig } from '../config.js';
import { describeError } from '../errors.js';
import { redactText } from '../redact.js';
import { createLogger } from '../logger.js';
import { startService } from '../service.js';
import { DB_USAGE, dbCommand } from './db.js';
import { IMAGES_USAGE, imagesCommand } from './images.js';
import { AUTH_USAGE, authCommand } from './auth.js';
import { ISO_GROUP } from './iso/iso-command.js';
import { PXE_GROUP } from './pxe/pxe-command.js';
import { runGroup, runVerb } from './verb.js';
import { eventsVerb, HOSTS_GROUP, INFRAENV_GROUP } from './client/client-command.js';

const USAGE = `usage:
  bootsmith serve [--role all|image|core]
  bootsmith iso ignition|kargs|network|extract|customize|reset|inspect …   (bootsmith iso --help)
  bootsmith pxe ignition|network|customize …                          (bootsmith pxe --help)
  bootsmith infraenv create|list|show|delete|download …, bootsmith hosts list, bootsmith events
${IMAGES_USAGE}
${AUTH_USAGE}
${DB_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'images':
      return imagesCommand(rest, { env: process.env, stdout: process.stdout, stderr: process.stderr });
    case 'auth':
      return authCommand(rest, { env: process.env, stdout: process.stdout, stderr: process.stderr });
    case 'db':
      return dbCommand(rest, { env: process.env, stdout: process.stdout, stderr: process.stderr });
    case 'iso':
      return runGroup(ISO_GROUP, rest, cliIo());
    case 'pxe':
      return runGroup(PXE_GROUP, rest, cliIo());
    case 'infraenv':
      return runGroup(INFRAENV_GROUP, rest, cliIo());
    case 'hosts':
      return runGroup(HOSTS_GROUP, rest, cliIo());
    case 'events':
      return runVerb(eventsVerb, rest, cliIo());
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      break;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

function cliIo() {
  return { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

async function serve(args: string[]): Promise<number> {
  let config;
  try {
    config = loadConfig(process.env, args);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`bootsmith: configuration error: ${redactText(err.message)}\n`);
      return 2;
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const service = await startService(config, logger);
  // First SIGTERM/SIGINT: graceful drain (/health 503, no new connections, streams finish
  // within SHUTDOWN_GRACE_SECONDS), then the database and image store stop; exit 0.
  // A second signal cuts the streams at once.
  let shuttingDown = false;
  const stop = (signal: string) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: cutting the streams still in flight');
      service.server.closeAllConnections();
      return;
    }
    shuttingDown = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs, connections: service.drain.openConnections }, 'draining');
    service.shutdown(config.shutdownGraceMs).then(
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

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`bootsmith: ${redactText(describeError(err))}\n`);
    process.exit(1);
  },
);
