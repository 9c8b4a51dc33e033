// Every command of the bootsmith command line as one tree of verb groups, and the function that
// runs a command line against it. Each verb answers `--help` (exit 0) before it does anything:
// `bootsmith serve --help` prints its options and starts nothing.
//   bootsmith serve [--role all|image|core]   run the service (configuration from the environment)
//   bootsmith iso …, bootsmith pxe …           offline ISO/PXE verbs as coreos-installer's (src/cli/iso, src/cli/pxe);
//                                              the PXE front door's (src/cli/client/pxe)
//   bootsmith infraenv …, hosts list, events   client verbs against a running service (src/cli/client)
//   bootsmith bmc add|list|show|boot|…         BMCs and their jobs on a running service (src/cli/client/bmc)
//   bootsmith images pull|list                 fetch and verify the configured base images / show the cache
//   bootsmith auth rotate-admin                new admin token (DATA_DIR/auth/admin-token); the old one stops working
//   bootsmith db export|import                 move InfraEnvs and hosts as JSON (also out of a PGlite-era DATA_DIR)
// Does: map words to verbs and print the top-level usage. Does NOT: implement any verb.
import { AUTH_GROUP, AUTH_USAGE } from './auth.js';
import { BMC_GROUP } from './client/bmc/bmc-command.js';
import { eventsVerb, HOSTS_GROUP, INFRAENV_GROUP } from './client/client-command.js';
import { DB_GROUP, DB_USAGE } from './db.js';
import { IMAGES_GROUP, IMAGES_USAGE } from './images.js';
import { ISO_GROUP } from './iso/iso-command.js';
import { PXE_GROUP } from './pxe/pxe-command.js';
import { serveVerb } from './serve.js';
import { type CliIo, runGroup, type VerbGroup } from './verb.js';

export const USAGE = `usage:
  bootsmith serve [--role all|image|core]
  bootsmith iso ignition|kargs|network|extract|customize|reset|inspect …   (bootsmith iso --help)
  bootsmith pxe ignition|network|customize|assign|unassign|assignments|dhcp-snippet …   (bootsmith pxe --help)
  bootsmith infraenv create|list|show|delete|download …, bootsmith hosts list, bootsmith events
  bootsmith bmc add|update|list|show|boot|eject|power|refresh|remove|import|macs …   (bootsmith bmc --help)
${IMAGES_USAGE}
${AUTH_USAGE}
${DB_USAGE}
Every command takes --help.`;

export const BOOTSMITH: VerbGroup = {
  name: 'bootsmith',
  verbs: {
    serve: serveVerb,
    iso: ISO_GROUP,
    pxe: PXE_GROUP,
    infraenv: INFRAENV_GROUP,
    hosts: HOSTS_GROUP,
    events: eventsVerb,
    bmc: BMC_GROUP,
    images: IMAGES_GROUP,
    auth: AUTH_GROUP,
    db: DB_GROUP,
  },
};

/** Runs `bootsmith <argv…>`; resolves to the exit code (`serve` resolves only on a usage or configuration error). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (!Object.hasOwn(BOOTSMITH.verbs, command)) {
    io.stderr.write(`bootsmith: unknown command ${JSON.stringify(command)}\n${USAGE}\n`);
    return 2;
  }
  return runGroup(BOOTSMITH, argv, io);
}
